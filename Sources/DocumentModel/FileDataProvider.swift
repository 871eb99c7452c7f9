import Foundation
import Synchronization

/// A provider that reads and writes a file directly, without file coordination.
///
/// Every read opens the file anew, so a file replaced by a rename is seen at once. Writing goes through a
/// ``FileDataSink`` (a temporary file beside this one) that ``replaceContents(with:)`` renames over the file:
/// readers see the old bytes or the new ones, never a mixture, and a crash leaves the old file whole.
/// Symbolic links are not resolved (as Nutrient's). Every member is `open`.
///
/// A provider made with a ``FileConfinement`` opens, creates, renames and removes its file only beneath the
/// confinement's root, through a descriptor of it, following no symbolic link, and reads only a regular file with
/// one link: what a service that must never serve a file outside its directories needs. Without one, any regular
/// file at the path is read (a FIFO, device or socket is refused either way).
open class FileDataProvider: FileDataProviding, WritableDataProviding, @unchecked Sendable {
    private let location: Mutex<URL>
    private let initialPath: String
    /// The directory the file must stay beneath, if any.
    public let confinement: FileConfinement?

    /// Makes a provider for the file at `fileURL` (which need not exist yet), not confined.
    public init(fileURL: URL) {
        let url = fileURL.standardizedFileURL
        location = Mutex(url)
        initialPath = url.path
        confinement = nil
    }

    /// Makes a provider for the file at `fileURL` (which need not exist yet), confined beneath `confinement`'s
    /// root (a Quire extension; ``init(fileURL:)`` is Nutrient's initializer, which subclasses override).
    public init(fileURL: URL, confinement: FileConfinement?) {
        let url = fileURL.standardizedFileURL
        location = Mutex(url)
        initialPath = url.path
        self.confinement = confinement
    }

    /// The file.
    open var fileURL: URL { location.withLock { $0 } }

    /// The file's path when the provider was made: unique per file and stable across launches.
    open var uid: String { initialPath }

    /// The file's size now (0 if it cannot be read).
    open var size: UInt64 {
        (try? FileSystemCalls.status(fileURL.path, confinement: confinement)).flatMap { $0 }.map { UInt64($0.st_size) }
            ?? 0
    }

    /// Whether the file exists and this process may write it (or, if it does not exist, create it).
    open var canWrite: Bool {
        let path = fileURL.path
        if FileManager.default.fileExists(atPath: path) { return FileManager.default.isWritableFile(atPath: path) }
        return FileManager.default.isWritableFile(atPath: fileURL.deletingLastPathComponent().path)
    }

    /// All the bytes of the file.
    /// - Throws: ``DataProviderError/io(path:call:errno:)`` (a missing file has `errno` ENOENT) or
    ///   ``DataProviderError/isDirectory(path:)``.
    open func data() throws -> Data {
        try FileSystemCalls.readFile(fileURL.path, confinement: confinement)
    }

    /// At most `size` bytes at `offset`; fewer (or none) at and past the end of the file.
    /// - Throws: as ``data()``.
    open func readData(size: Int, atOffset offset: UInt64) throws -> Data {
        try FileSystemCalls.readChunk(fileURL.path, size: size, offset: offset, confinement: confinement)
    }

    /// A sink on a new temporary file beside this one, with the same extension; `.append` copies the current
    /// bytes into it first.
    /// - Throws: a ``DataProviderError`` when the directory is not writable or (for `.append`) the file
    ///   cannot be read.
    open func createDataSink(options: DataSinkOptions) throws -> any DataSink {
        try makeSink(options: options, retainingBytes: false) { try self.data() }
    }

    /// A finished sink made of the file at `url`, which its writer filled and synced: ``replaceContents(with:)``
    /// renames it over this provider's file (it must be on the same file system). Its bytes are read once for
    /// their fingerprint. A sink never put in place removes the file when it is released.
    /// - Throws: a ``DataProviderError`` when the file cannot be read or given the file's permissions.
    open func createDataSink(adoptingFileAt url: URL) throws -> any DataSink {
        try FileDataSink(adopting: url, target: fileURL, owner: self, retainingBytes: false)
    }

    /// Renames the sink's temporary file over the file (atomically) and syncs the directory.
    /// - Throws: ``DataProviderError/foreignSink`` (another provider's sink or another type),
    ///   ``DataProviderError/sinkNotFinished``, ``DataProviderError/sinkFailed(_:)``,
    ///   ``DataProviderError/sinkConsumed``, or the I/O error of the rename; the file is untouched then.
    open func replaceContents(with sink: any DataSink) throws {
        try putInPlace(sink) { target, _ in try Self.rename(sink, over: target) }
    }

    /// Removes the file.
    /// - Throws: ``DataProviderError/io(path:call:errno:)``.
    open func deleteData() throws {
        try FileSystemCalls.unlink(fileURL.path, confinement: confinement)
    }

    /// Nothing is cached: every read opens the file anew. Subclasses that cache should drop it here.
    open func clearCache() {}

    // MARK: for subclasses in this module

    /// Changes ``fileURL`` (a coordinated provider follows moves); returns the previous URL.
    @discardableResult
    func relocate(to url: URL) -> URL {
        location.withLock { current in
            defer { current = url.standardizedFileURL }
            return current
        }
    }

    /// Makes a sink; `currentBytes` supplies the bytes an `.append` sink starts with.
    func makeSink(
        options: DataSinkOptions, retainingBytes: Bool, currentBytes: () throws -> Data
    ) throws -> FileDataSink {
        let sink = try FileDataSink(beside: fileURL, options: options, owner: self, retainingBytes: retainingBytes)
        if options.contains(.append) {
            let bytes = try currentBytes()
            guard sink.writeData(bytes) else { throw sink.failure ?? .sinkFinished }
        }
        return sink
    }

    /// Validates `sink`, runs `replace` with the target URL and what the sink holds, and gives the sink back
    /// for cleanup if `replace` throws.
    func putInPlace(_ sink: any DataSink, replace: (URL, FileDataSink.Contents) throws -> Void) throws {
        guard let sink = sink as? FileDataSink else { throw DataProviderError.foreignSink }
        let contents = try sink.consume(for: self)
        do {
            try replace(fileURL, contents)
        } catch {
            sink.release()
            throw error
        }
    }

    /// Renames a consumed sink over `target` and syncs the directory.
    static func rename(_ sink: any DataSink, over target: URL) throws {
        guard let sink = sink as? FileDataSink else { throw DataProviderError.foreignSink }
        try FileSystemCalls.replace(target.path, with: sink.fileURL.path, confinement: sink.owner?.confinement)
    }
}
