import Foundation
import NIOCore
import Testing

@testable import StoreCore

/// Where request bodies enter the store, alone: its directory, its budget and its limit.
@Suite("Upload intake")
struct UploadIntakeTests {
    struct BodyFailed: Error {}

    /// A body of `pieces`, then (with `failing`) the client going away.
    static func body(_ pieces: [String], failing: Bool = false) -> AsyncThrowingStream<ByteBuffer, any Error> {
        AsyncThrowingStream { continuation in
            for piece in pieces { continuation.yield(ByteBuffer(string: piece)) }
            continuation.finish(throwing: failing ? BodyFailed() : nil)
        }
    }

    static let blocking: @Sendable (@escaping @Sendable () throws -> Void) async throws -> Void = { try $0() }

    static func contents(_ directory: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    }

    @Test("one node empties what a crash left in <store>/incoming; the directory is 0700 and outlives close()")
    func oneNode() throws {
        let store = try TemporaryDirectory()
        defer { store.remove() }
        let incoming = store.url.appendingPathComponent("incoming")
        try FileManager.default.createDirectory(at: incoming, withIntermediateDirectories: true)
        try Data("left".utf8).write(to: incoming.appendingPathComponent(".upload-abcdef"))
        let intake = try UploadIntake(storeDirectory: store.url, sharedStore: false, budgetBytes: 100, limit: 10)
        #expect(intake.directory.standardizedFileURL.path == incoming.standardizedFileURL.path)
        #expect(Self.contents(intake.directory).isEmpty)
        let mode = try FileManager.default.attributesOfItem(atPath: intake.directory.path)[.posixPermissions] as? Int
        #expect(mode == 0o700)
        intake.close()
        #expect(FileManager.default.fileExists(atPath: incoming.path))
    }

    @Test("a cluster's nodes each stream into a directory of their own, removed when that node closes")
    func clusterNodes() throws {
        let store = try TemporaryDirectory()
        defer { store.remove() }
        let first = try UploadIntake(storeDirectory: store.url, sharedStore: true, budgetBytes: 100, limit: 10)
        try Data("in flight".utf8).write(to: first.directory.appendingPathComponent(".upload-123456"))
        let second = try UploadIntake(storeDirectory: store.url, sharedStore: true, budgetBytes: 100, limit: 10)
        #expect(first.directory != second.directory)
        // The second node's start leaves the first node's bodies alone.
        #expect(Self.contents(first.directory) == [".upload-123456"])
        first.close()
        #expect(!FileManager.default.fileExists(atPath: first.directory.path))
        #expect(FileManager.default.fileExists(atPath: second.directory.path))
    }

    @Test("a body is kept in a file whose bytes the budget holds until it is taken or discarded")
    func receiveAndRelease() async throws {
        let store = try TemporaryDirectory()
        defer { store.remove() }
        let intake = try UploadIntake(storeDirectory: store.url, sharedStore: false, budgetBytes: 100, limit: 50)
        let upload = try await intake.receive(
            Self.body(["%PDF-", "1.7"]), declaredLength: 8, limit: 50, blocking: Self.blocking)
        #expect(try Data(contentsOf: upload.fileURL) == Data("%PDF-1.7".utf8))
        #expect(intake.bytesInFlight == 8)
        upload.discard()
        #expect(intake.bytesInFlight == 0)
        #expect(Self.contents(intake.directory).isEmpty)
        // Chunked (no declared length): reserved as it comes, released when taken.
        let chunked = try await intake.receive(
            Self.body(["abc", "def"]), declaredLength: nil, limit: 50, blocking: Self.blocking)
        #expect(intake.bytesInFlight == 6)
        chunked.take()
        #expect(intake.bytesInFlight == 0)
    }

    @Test("over the limit, over the budget, or a client that goes away: an error, no file, nothing reserved")
    func refusals() async throws {
        let store = try TemporaryDirectory()
        defer { store.remove() }
        let intake = try UploadIntake(storeDirectory: store.url, sharedStore: false, budgetBytes: 20, limit: 15)
        await #expect(throws: StoreError.tooLarge(limit: 15)) {
            _ = try await intake.receive(Self.body([]), declaredLength: 16, limit: 100, blocking: Self.blocking)
        }
        await #expect(throws: StoreError.tooLarge(limit: 15)) {
            _ = try await intake.receive(
                Self.body(["0123456789", "0123456789"]), declaredLength: nil, limit: 100, blocking: Self.blocking)
        }
        let holder = try await intake.receive(
            Self.body(["0123456789"]), declaredLength: 10, limit: 15, blocking: Self.blocking)
        await #expect(throws: StoreError.uploadBudgetExhausted(budget: 20, retryAfterSeconds: 5)) {
            _ = try await intake.receive(Self.body([]), declaredLength: 11, limit: 15, blocking: Self.blocking)
        }
        await #expect(throws: BodyFailed.self) {
            _ = try await intake.receive(
                Self.body(["01234"], failing: true), declaredLength: 9, limit: 15, blocking: Self.blocking)
        }
        #expect(intake.bytesInFlight == 10)
        #expect(Self.contents(intake.directory).count == 1)
        holder.discard()
        #expect(intake.bytesInFlight == 0)
        #expect(Self.contents(intake.directory).isEmpty)
    }
}
