import Foundation
import QuireSystem
import NIOCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A request body on its way into the store: streamed into a temporary file `<store>/incoming/.upload-XXXXXX`
/// (written on the library's thread pool, a megabyte at a time, never held whole in memory), its bytes reserved in
/// the service's ``UploadBudget``. The library takes the file into the store by renaming it (``take()``); an
/// upload that fails or is abandoned removes its file and gives its bytes back (``discard()``, or its release).
package final class IncomingUpload: Sendable {
    /// The temporary file.
    package let fileURL: URL
    /// The body's length in bytes.
    let length: Int
    private let budget: UploadBudget
    /// Whether the file is still this upload's (neither taken nor removed), and the bytes it reserved.
    private let claim: Mutex<(isHeld: Bool, reserved: Int)>

    private init(fileURL: URL, length: Int, reserved: Int, budget: UploadBudget) {
        self.fileURL = fileURL
        self.length = length
        self.budget = budget
        claim = Mutex((true, reserved))
    }

    deinit { discard() }

    /// The file is the store's now (renamed into place): gives the reserved bytes back.
    package func take() {
        let reserved = claim.withLock { claim -> Int in
            defer { claim = (false, 0) }
            return claim.reserved
        }
        budget.release(reserved)
    }

    /// Removes the file if it is still this upload's, and gives the reserved bytes back. Calling it again does
    /// nothing.
    package func discard() {
        let (wasHeld, reserved) = claim.withLock { claim -> (Bool, Int) in
            defer { claim = (false, 0) }
            return claim
        }
        if wasHeld { unlink(fileURL.path) }
        budget.release(reserved)
    }

    /// The size of the pieces written to the file.
    static let pieceSize = 1 << 20
    /// The seconds a client refused for the budget is told to wait (``StoreError/retryAfter``).
    static let retryAfterSeconds = 5

    /// Streams `body` into a new temporary file in `directory`.
    /// - Parameters:
    ///   - declaredLength: The request's `Content-Length`, if it has one: above `limit` it is refused before any
    ///     body byte is read; else it is reserved in the budget whole, before reading.
    ///   - limit: The most bytes an upload may have (a chunked body is cut when it passes it).
    ///   - blocking: Runs file I/O off the event loops and the cooperative pool.
    /// - Throws: ``StoreError/tooLarge(limit:)`` above the limit;
    ///   ``StoreError/uploadBudgetExhausted(budget:retryAfterSeconds:)`` when the budget is spent; the file
    ///   system's error (`POSIXError`); or the body's error (the client went away). The file is gone then.
    static func receive<Body: AsyncSequence & Sendable>(
        _ body: Body, declaredLength: Int?, limit: Int, budget: UploadBudget, directory: URL,
        blocking: @Sendable (@escaping @Sendable () throws -> Void) async throws -> Void
    ) async throws -> IncomingUpload where Body.Element == ByteBuffer {
        if let declaredLength, declaredLength > limit { throw StoreError.tooLarge(limit: limit) }
        let refused = StoreError.uploadBudgetExhausted(budget: budget.limit, retryAfterSeconds: retryAfterSeconds)
        var reserved = declaredLength ?? 0
        if let declaredLength, !budget.reserve(declaredLength) { throw refused }
        let file: TemporaryFile
        do {
            file = try await TemporaryFile.make(in: directory, blocking: blocking)
        } catch {
            budget.release(reserved)
            throw error
        }
        var received = 0
        do {
            var pending = ByteBuffer()
            for try await piece in body {
                received += piece.readableBytes
                if received > limit { throw StoreError.tooLarge(limit: limit) }
                if declaredLength == nil {
                    guard budget.reserve(piece.readableBytes) else { throw refused }
                    reserved += piece.readableBytes
                }
                var piece = piece
                pending.writeBuffer(&piece)
                if pending.readableBytes >= pieceSize {
                    let full = pending
                    pending = ByteBuffer()
                    try await blocking { try file.write(full) }
                }
            }
            let rest = pending
            try await blocking {
                try file.write(rest)
                try file.finish()
            }
        } catch {
            await file.remove(blocking: blocking)
            budget.release(reserved)
            throw error
        }
        return IncomingUpload(fileURL: file.url, length: received, reserved: reserved, budget: budget)
    }
}

/// The temporary file of an ``IncomingUpload`` while it is written: created with `mkostemps` (mode 0600,
/// close-on-exec from its creation), written through its descriptor, synced and closed by ``finish()``.
private final class TemporaryFile: Sendable {
    let url: URL
    private let descriptor: Mutex<Int32>

    private init(url: URL, descriptor: Int32) {
        self.url = url
        self.descriptor = Mutex(descriptor)
    }

    deinit {
        let fd = descriptor.withLock { $0 }
        if fd >= 0 { SystemCall.close(fd) }
    }

    /// A new empty file `.upload-XXXXXX` in `directory`.
    static func make(
        in directory: URL, blocking: @Sendable (@escaping @Sendable () throws -> Void) async throws -> Void
    ) async throws -> TemporaryFile {
        let made = Mutex<TemporaryFile?>(nil)
        try await blocking {
            let created: (descriptor: Int32, path: String)
            do throws(SystemCallError) {
                created = try SystemCall.makeTemporaryFile(template: "\(directory.path)/.upload-XXXXXX")
            } catch {
                throw POSIXError(POSIXErrorCode(rawValue: error.errno) ?? .EIO)
            }
            let (fd, path) = created
            let file = TemporaryFile(url: URL(fileURLWithPath: path), descriptor: fd)
            made.withLock { $0 = file }
        }
        return made.withLock { $0! }
    }

    /// Appends `buffer` (blocking: call on a thread pool).
    func write(_ buffer: ByteBuffer) throws {
        let fd = descriptor.withLock { $0 }
        try buffer.withUnsafeReadableBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                do throws(SystemCallError) {
                    offset += try SystemCall.retryingOnInterrupt("write", path: url.path) {
                        Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                    }
                } catch {
                    throw POSIXError(POSIXErrorCode(rawValue: error.errno) ?? .EIO)
                }
            }
        }
    }

    /// Syncs the bytes to disk and closes the file (blocking: call on a thread pool).
    func finish() throws {
        let fd = descriptor.withLock { fd -> Int32 in
            defer { fd = -1 }
            return fd
        }
        guard fd >= 0 else { return }
        defer { SystemCall.close(fd) }
        guard fsync(fd) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// Closes and removes the file.
    func remove(blocking: @Sendable (@escaping @Sendable () throws -> Void) async throws -> Void) async {
        let fd = descriptor.withLock { fd -> Int32 in
            defer { fd = -1 }
            return fd
        }
        let path = url.path
        // Cleanup must happen even for a cancelled task: the pool, else here (unlink does not wait for the disk).
        do {
            try await blocking {
                if fd >= 0 { SystemCall.close(fd) }
                unlink(path)
            }
        } catch {
            if fd >= 0 { SystemCall.close(fd) }
            unlink(path)
        }
    }
}
