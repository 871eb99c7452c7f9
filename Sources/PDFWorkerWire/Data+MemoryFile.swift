import CQuireLinux
import Foundation
import QuireSystem

extension Data {
    /// The bytes of a memory file passed with a worker message, read from offset 0 (`pread`): its first `length`
    /// bytes, or all of it (its size as `fstat` gives it) when `length` is nil. Nil when it is not a regular file
    /// that long or cannot be read.
    public init?(memoryFile descriptor: Int32, length: Int? = nil) {
        let size = CQuire_regularFileSize(descriptor)
        guard size >= 0, size >= Int64(length ?? 0) else { return nil }
        var data = Data(count: length ?? Int(size))
        do {
            try data.withUnsafeMutableBytes { buffer in try SystemCall.readExactly(descriptor, into: buffer) }
        } catch {
            return nil
        }
        self = data
    }
}
