import CoordinationArbiter
import Testing

/// Issue 30, item 6: file packages were judged by each requesting process alone, so a writer whose process did
/// not know an extension wrote inside a package as inside a plain directory, and the package's presenter got no
/// `relinquishToWriter`. Fails before `packageExtensionsDeclared(_:by:)` (it did not exist).
@Suite("File-package extensions agreed through the arbiter")
struct PackageExtensionTests {
    @Test("a write inside a package by a client that does not know the extension asks the package's presenter")
    func agreedExtensionsApplyToEveryClient() {
        var harness = Harness()
        harness.register(1, client: 1, purpose: "app", path: "/r/doc.qpkg")
        // Nobody declared qpkg: a plain directory, the write is granted at once.
        let plain = harness.request(1, client: 2, purpose: "w", [.writing("/r/doc.qpkg/page")])
        #expect(plain.first?.hasPrefix("grant R1 /r/doc.qpkg/page") == true, "\(plain)")
        harness.end(1, client: 2)
        harness.replyAll()

        // The presenter's process declares qpkg: the same write by the other client is a write of the package.
        #expect(harness.arbiter.packageExtensionsDeclared(["qpkg"], by: ClientID(1)).isEmpty)
        let lines = harness.request(2, client: 2, purpose: "w", [.writing("/r/doc.qpkg/page")])
        #expect(lines.contains("P1 relinquishToWriter"), "\(lines)")
        #expect(!lines.contains { $0.hasPrefix("grant R2") }, "\(lines)")
        harness.replyAll()
        harness.end(2, client: 2)
        harness.replyAll()

        // Its disconnection withdraws the declaration.
        harness.disconnect(1)
        harness.register(2, client: 3, purpose: "other", path: "/r/doc.qpkg")
        let withdrawn = harness.request(3, client: 2, purpose: "w", [.writing("/r/doc.qpkg/page")])
        #expect(withdrawn.first?.hasPrefix("grant R3 /r/doc.qpkg/page") == true, "\(withdrawn)")
    }

    @Test("an intent gains the package roots of the agreed extensions along its path, once")
    func intentsGainPackageRoots() {
        let intent = AccessIntent.writing("/r/a.qpkg/b.QPKG/c", packageRootDepths: [2])
        #expect(intent.withPackages(["qpkg"]).packageRootDepths == [2, 3])
        #expect(intent.withPackages(["pages"]).packageRootDepths == [2])
        #expect(intent.withPackages([]).packageRootDepths == [2])
    }
}
