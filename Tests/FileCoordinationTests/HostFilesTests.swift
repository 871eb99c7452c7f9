// SocketSystem is internal: these tests need a build for testing (debug; `swift test -c release` skips them).
#if DEBUG
    @testable import FileCoordination
    import Foundation
    import Testing

    #if canImport(Glibc)
        import Glibc
    #endif

    /// The host's small files (the lock file's pid, the client list) are rewritten in place: what a reader finds
    /// after each rewrite is exactly the new text, whether it is shorter, longer or empty.
    @Suite("The host's small files")
    struct HostFilesTests {
        @Test("replacing a file's contents leaves exactly the new text: shorter, longer, equal and empty")
        func replaceContentsLeavesExactlyTheText() throws {
            let tree = try TemporaryTree()
            let path = tree.root.appendingPathComponent("arbiter.clients").path
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            try #require(descriptor >= 0)
            defer { close(descriptor) }
            for text in ["123456\n7890\n", "42\n", "4242424242\n17\n", "4242424242\n18\n", "", "", "5\n"] {
                SocketSystem.replaceContents(of: descriptor, with: text)
                #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
            }
        }
    }
#endif
