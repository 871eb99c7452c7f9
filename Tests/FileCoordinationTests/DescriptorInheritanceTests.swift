import Foundation
import Testing

/// Every descriptor the library makes is close-on-exec from its creation, so a child another thread starts
/// (`quire exec`'s command, a PDF worker) inherits none of them.
///
/// The check runs in a `CoordinationProbe` process of its own: in the test process, other suites running at the
/// same time open and close descriptors of their own (some inheritable, such as `Process`'s pipes), which made
/// the comparison fail whenever suites ran in parallel.
@Suite("Descriptor inheritance")
struct DescriptorInheritanceTests {
    @Test("A child started while coordinating and watching inherits no descriptor of the library")
    func childInheritsNoLibraryDescriptor() throws {
        let arbiter = try ArbiterDirectory()
        defer { arbiter.remove() }
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let file = try tree.file("watched.txt", contents: "one")
        let probe = try ProbeProcess(["descriptors", file.path], arbiter: arbiter)
        #expect(probe.waitFor("presentedItemDidChange"))
        probe.send()
        #expect(probe.waitForLine { $0.hasPrefix("after ") })
        probe.closeInput()
        #expect(probe.exitStatus() == 0)
        let lines = probe.printed
        func descriptors(_ prefix: String) -> String? {
            lines.first { $0.hasPrefix(prefix + " ") }.map { String($0.dropFirst(prefix.count + 1)) }
        }
        let baseline = try #require(descriptors("baseline"))
        #expect(!baseline.isEmpty && !baseline.hasPrefix("error"))
        #expect(descriptors("coordinating") == baseline)
        #expect(descriptors("after") == baseline)
    }
}
