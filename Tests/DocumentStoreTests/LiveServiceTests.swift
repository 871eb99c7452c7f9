import DocumentStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("The service over a real socket")
struct LiveServiceTests {
    @Test("buildApplication serves /health, refuses a mutating request without the token, and stops cleanly")
    func liveService() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.url.appendingPathComponent("store", isDirectory: true)
        let configuration = StoreConfiguration(storeDirectory: store, port: 0, token: "t0ken")
        var logger = Logger(label: "quire.test")
        logger.logLevel = .warning
        let app = try buildApplication(configuration: configuration, logger: logger)
        try await app.test(.live) { client in
            let health = try await client.execute(uri: "/health", method: .get)
            #expect(health.status == .ok)
            #expect(String(buffer: health.body) == #"{"lastEventId":0,"status":"ok"}"#)
            let refused = try await client.execute(uri: "/documents", method: .post)
            #expect(refused.status == .unauthorized)
            #expect(refused.headers[.contentType] == "application/problem+json")
        }
        #expect(FileManager.default.fileExists(atPath: store.appendingPathComponent("catalog.sqlite").path))
    }

    @Test("a second service on a store is refused while the first holds the store's lock, naming this process")
    func storeLocked() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.url.appendingPathComponent("store", isDirectory: true)
        let first = try buildApplication(configuration: StoreConfiguration(storeDirectory: store, port: 0))
        #expect(throws: StoreLockError.inUse(store: store.path, pid: getpid())) {
            _ = try buildApplication(configuration: StoreConfiguration(storeDirectory: store, port: 0))
        }
        withExtendedLifetime(first) {}  // the first service holds the lock until here
    }

    // Fails on main (issue 29, item 5): the lock was the file's, so a second lock on a new quire.lock was taken.
    @Test("quire.lock removed or replaced under the holder: a second lock is still refused; freed, it is taken")
    func storeLockFileRemoved() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.url.appendingPathComponent("store", isDirectory: true)
        let first = try StoreLock(storeDirectory: store)
        #expect(first.locksDirectory)
        // Each StoreLock opens the directory anew: flock conflicts between open file descriptions, as between
        // processes.
        try FileManager.default.removeItem(at: first.fileURL)
        #expect(throws: StoreLockError.inUse(store: store.path, pid: nil)) { _ = try StoreLock(storeDirectory: store) }
        try "1\n".write(to: first.fileURL, atomically: true, encoding: .utf8)  // replaced by another file
        #expect(throws: StoreLockError.inUse(store: store.path, pid: 1)) { _ = try StoreLock(storeDirectory: store) }
        #expect(throws: StoreLockError.self) {
            _ = try buildApplication(configuration: StoreConfiguration(storeDirectory: store, port: 0))
        }
        first.release()
        let second = try StoreLock(storeDirectory: store)
        #expect(try String(contentsOf: second.fileURL, encoding: .utf8) == "\(getpid())\n")
        second.release()
    }

    @Test("a store directory that cannot be made stops buildApplication with the store lock's error")
    func unusableStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.file("file", contents: "x")
        #expect(throws: StoreLockError.self) {
            _ = try buildApplication(configuration: StoreConfiguration(storeDirectory: file, port: 0))
        }
    }
}
