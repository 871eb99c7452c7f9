import FileCoordination
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A process's first access, when the thread that waits for the grant makes the connection itself.
@Suite("A process's first connection")
struct FirstConnectionTests {
    /// Another process holds the host's lock and never accepts (it hangs between taking the lock and listening).
    /// The first access must neither hang nor blame the wrong thing: it fails, naming the lock, once the
    /// connection's patience (2 s) is spent. Its coordinator's timeout acts through a host, so it cannot act here.
    @Test("a first access fails, naming the lock, when a host holds the lock and never accepts")
    func firstAccessFailsWhenAHostNeverAccepts() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let file = try tree.file("doc.txt", contents: "x")
        let arbiters = try ArbiterDirectory()
        defer { arbiters.remove() }
        let directory = URL(fileURLWithPath: arbiters.path, isDirectory: true)
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // flock locks of two open files conflict even within one process: this one stands for the other host.
        let lockPath = directory.appendingPathComponent("arbiter.lock").path
        let lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        try #require(lock >= 0)
        defer { close(lock) }
        try #require(flock(lock, LOCK_EX | LOCK_NB) == 0)

        let domain = CoordinationDomain(configuration: CoordinationConfiguration(scope: .user, directory: directory))
        let coordinator = FileCoordinator(domain: domain)
        coordinator.timeout = .seconds(30)
        let started = ContinuousClock.now
        var failure = "granted"
        do {
            try coordinator.coordinate(writingItemAt: file) { _ in }
        } catch FileCoordinationError.arbiterUnavailable(let reason) {
            failure = reason
        } catch {
            failure = "\(error)"
        }
        let waited = ContinuousClock.now - started
        #expect(failure.contains("holds \(lockPath) but does not accept connections"), "\(failure)")
        #expect(waited < .seconds(15), "returned after \(waited)")
    }
}
