import FileCoordination

/// A version kept of one of a document's files in the store's versions store, and the size of its contents: one
/// entry of ``DocumentLibrary/versions(_:password:)``.
public struct KeptVersion: Sendable, Equatable {
    /// The version (its identifier, the file it is a version of, when it was kept, whether it is a conflict
    /// version and whether that conflict is resolved).
    public var version: FileVersion
    /// Bytes of its contents.
    public var size: Int

    /// Makes the entry of `version`, whose contents are `size` bytes.
    public init(version: FileVersion, size: Int) {
        self.version = version
        self.size = size
    }
}
