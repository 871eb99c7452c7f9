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
    /// The path names something other than a regular file (`kind`: "FIFO", "character device", "socket", …);
    /// nothing was read from it.
    case notRegularFile(path: String, kind: String)
    /// The path leads out of the directory the provider is confined to (``FileConfinement``): a symbolic link
    /// or `..` on the way, or a path that is not beneath `root` at all.
    case outsideConfinement(path: String, root: String)
    /// The file has `count` hard links; a confined provider reads only files with one (another link may lie
    /// outside its directory).
    case multipleLinks(path: String, count: Int)

    /// The error number of a failed system call, or nil for the other cases.
    public var errno: Int32? {
        if case .io(_, _, let number) = self { return number }
        return nil
    }

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
        case .notRegularFile(let path, let kind):
            return "\(path): is a \(kind), not a regular file; nothing was read from it"
        case .outsideConfinement(let path, let root):
            return "\(path): leads out of \(root) (a symbolic link or \"..\" on the way, or not beneath it); refused"
        case .multipleLinks(let path, let count):
            return "\(path): has \(count) hard links; only files with one link are read (another may lie outside)"
        }
    }
}
