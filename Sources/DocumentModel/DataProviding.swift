import FileCoordination
import Foundation

/// A source of PDF bytes for a ``Document``: a file, memory, or anything else.
///
/// Implementations must be thread-safe: bytes may be asked for from several threads at once, in random chunks.
public protocol DataProviding: AnyObject, Sendable {
    /// An identifier unique to this source and stable across launches (a path, a content digest), for caches.
    var uid: String { get }
    /// The number of bytes now available (0 when they cannot be read).
    var size: UInt64 { get }
    /// All the bytes.
    /// - Throws: a ``DataProviderError`` (or the error of the coordination that guards the read).
    func data() throws -> Data
    /// At most `size` bytes starting at `offset`; fewer at the end of the data. Reading at or past the end
    /// returns no bytes.
    /// - Throws: a ``DataProviderError`` (or the error of the coordination that guards the read).
    func readData(size: Int, atOffset offset: UInt64) throws -> Data
}

/// How a ``DataSink`` starts.
public struct DataSinkOptions: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: UInt
    /// Makes options from raw bits.
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// Start from the provider's current bytes and add to them (without it, the sink starts empty).
    public static let append = DataSinkOptions(rawValue: 1 << 0)
}

/// Where a writable provider collects new bytes before ``WritableDataProviding/replaceContents(with:)`` puts
/// them in place in one step.
public protocol DataSink: AnyObject {
    /// True once ``finish()`` was called.
    var isFinished: Bool { get }
    /// How the sink started.
    var options: DataSinkOptions { get }
    /// Adds bytes. Returns false if they could not be written or the sink is finished: the save has failed.
    func writeData(_ data: Data) -> Bool
    /// Ends writing (the bytes are made durable). Returns false if that failed: the save has failed.
    func finish() -> Bool
}

/// A provider whose bytes can be replaced and deleted.
public protocol WritableDataProviding: DataProviding {
    /// A new sink for this provider; with ``DataSinkOptions/append`` it starts with the current bytes.
    /// - Throws: a ``DataProviderError`` when the sink cannot be made (no writable place, unreadable bytes).
    func createDataSink(options: DataSinkOptions) throws -> any DataSink
    /// Replaces (or, for an `.append` sink, extends) the bytes with the sink's, in one step.
    /// - Throws: ``DataProviderError/sinkNotFinished`` for an unfinished sink, ``DataProviderError/foreignSink``
    ///   for a sink another provider made, ``DataProviderError/sinkFailed(_:)`` if a write to it failed, or an
    ///   I/O or coordination error. The old bytes stay in place whenever it throws.
    func replaceContents(with sink: any DataSink) throws
    /// Deletes the bytes (for a file: removes the file).
    /// - Throws: a ``DataProviderError`` or a coordination error.
    func deleteData() throws
}

/// A provider backed by a file.
public protocol FileDataProviding: DataProviding {
    /// The file (for a coordinated provider, its current place: it follows moves).
    var fileURL: URL { get }
}

/// A file provider that reads and writes only inside coordinated accesses and presents its file.
public protocol CoordinatedFileDataProviding: FileDataProviding {
    /// The presenter that stands for this provider (the provider itself for ``CoordinatedFileDataProvider``);
    /// its `presentedItemURL` equals ``FileDataProviding/fileURL``.
    var filePresenter: any FilePresenter { get }
    /// Who hears of changes and deletions of the file. Held weakly; a ``Document`` sets itself.
    var coordinationDelegate: (any FileCoordinationDelegate)? { get set }
    /// Whether ``resolveFileConflict(with:)`` can act now (for `.save`: a copy of the bytes is at hand).
    var isConflictResolutionAvailable: Bool { get }
    /// Acts on a conflict: `.save` writes the provider's copy of the bytes back (restoring a deleted file; does
    /// nothing without a copy), `.reload` forgets what it remembered of the file, `.close` does nothing here.
    /// - Throws: an I/O or coordination error from writing the file back.
    func resolveFileConflict(with resolution: FileConflictResolution) throws
}

/// Hears from coordinated providers when their file's content changed or the file is about to be deleted.
///
/// Both calls arrive on a private queue of the provider, never on the thread that made the change.
public protocol FileCoordinationDelegate: AnyObject {
    /// The file's content changed since the provider last read it (a metadata-only change never calls this).
    func presentedItemDidChange(for dataProvider: any CoordinatedFileDataProviding)
    /// The file is being deleted. Call `completionHandler` promptly, on the same queue if possible: the
    /// deleter waits for it. Passing an error refuses a coordinated deletion.
    func accommodatePresentedItemDeletion(
        for dataProvider: any CoordinatedFileDataProviding,
        completionHandler: @escaping @Sendable ((any Error)?) -> Void)
}
