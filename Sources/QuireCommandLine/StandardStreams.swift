import QuireSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one place where the command writes to its standard streams: whole buffers, `EINTR` retried by the
/// package's one system-call layer (``SystemCall``).
public enum StandardStreams {
    /// Writes bytes to standard output; a closed pipe ends the write quietly.
    public static func write(_ bytes: some Sequence<UInt8>) {
        write(Array(bytes), to: 1)
    }

    /// Writes a string to standard output.
    public static func print(_ text: String) {
        write(Array(text.utf8), to: 1)
    }

    /// Writes one line to standard error.
    public static func printError(_ line: String) {
        write(Array((line + "\n").utf8), to: 2)
    }

    private static func write(_ bytes: [UInt8], to fd: Int32) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = try? SystemCall.retryingOnInterrupt("write") {
                    Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                }
                guard let written else { return }
                offset += written
            }
        }
    }
}
