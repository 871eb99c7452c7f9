import Foundation
import QuireSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A PDF's bytes for the worker processes, and the sealed memfd they travel in: made once, then attached to
/// every request about these bytes. A worker recognises the memfd (its inode, which cannot be reused while the
/// memfd lives) and answers from the document it opened for the last request instead of parsing it again.
final class PDFWorkPayload: Sendable {
    /// The bytes.
    let data: Data
    private let memfd = Mutex<Int32>(-1)

    /// A payload of `data` (no memfd yet).
    init(_ data: Data) { self.data = data }

    deinit {
        let descriptor = memfd.withLock { $0 }
        if descriptor >= 0 { close(descriptor) }
    }

    /// The sealed memfd holding the bytes, made on first use (valid while the payload lives).
    /// - Throws: ``PDFWorkError/unavailable(_:)`` when no memfd can be made.
    func descriptor() throws(PDFWorkError) -> Int32 {
        let existing = memfd.withLock { $0 }
        if existing >= 0 { return existing }
        let made: Int32
        do {
            made = try data.withUnsafeBytes { bytes in
                try SystemCall.memoryFile(name: "quire-pdf", contents: bytes, sealed: true)
            }
        } catch {
            throw .unavailable("cannot put the PDF in a sealed memfd: \(error)")
        }
        let kept = memfd.withLock { current -> Int32 in
            if current < 0 { current = made }
            return current
        }
        if kept != made { close(made) }  // another thread made one first
        return kept
    }
}
