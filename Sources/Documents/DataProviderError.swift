#if canImport(Glibc)
    import Glibc
#endif

/// An error of a data provider or of one of its sinks. Each case names the file where there is one.
public enum DataProviderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A system call failed on `path`: `call` is the C function, `errno` the error number it set.
    case io(path: String, call: String, errno: Int32)
    /// The path is a directory, not a file.
    case isDirectory(path: String)
    /// ``WritableDataProviding/replaceContents(with:)`` got a sink whose ``DataSink/finish()`` was not called.
    case sinkNotFinished
    /// ``WritableDataProviding/replaceContents(with:)`` got a sink made by another provider or of another type.
    case foreignSink
    /// ``DataSink/writeData(_:)`` was called after ``DataSink/finish()``.
    case sinkFinished
    /// The sink was already used to replace the contents once.
    case sinkConsumed
    /// A write to the sink failed earlier, with this cause: the save cannot go on.
    case sinkFailed(String)

    /// Whether the failure means the file does not exist.
    public var isFileMissing: Bool {
        if case .io(_, _, let number) = self { return number == ENOENT || number == ENOTDIR }
        return false
    }

    /// A one-line message: what failed, on which file.
    public var description: String {
        switch self {
        case .io(let path, let call, let number):
            return "\(path): \(String(cString: strerror(number))) (\(call))"
        case .isDirectory(let path):
            return "\(path): is a directory, not a file"
        case .sinkNotFinished:
            return "the data sink was not finished: call finish() before replacing the contents"
        case .foreignSink:
            return "the data sink belongs to another data provider: make it with this provider's createDataSink"
        case .sinkFinished:
            return "the data sink is finished: no more bytes can be written to it"
        case .sinkConsumed:
            return "the data sink was already used to replace the contents: make a new one"
        case .sinkFailed(let cause):
            return "an earlier write to the data sink failed (\(cause)): the save was abandoned"
        }
    }
}
