#if canImport(Glibc)
import QuireSystem
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Copies everything from one file descriptor to another, whole buffers, retrying `EINTR`.
enum FileDescriptorCopy {
    /// Reads `input` to its end and writes it all to `output`; a closed pipe (`EPIPE`) on `output` ends the
    /// copy quietly. The names go into errors.
    static func copy(from input: Int32, named inputName: String, to output: Int32, named outputName: String)
        throws(SystemCallError)
    {
        let size = 128 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = try SystemCall.retryingOnInterrupt("read", path: inputName) { Glibc.read(input, buffer, size) }
            if count == 0 { return }
            var offset = 0
            while offset < count {
                do {
                    offset += try SystemCall.retryingOnInterrupt("write", path: outputName) {
                        Glibc.write(output, buffer + offset, count - offset)
                    }
                } catch where error.errno == EPIPE {
                    return
                }
            }
        }
    }
}
