import FileCoordination
import Foundation
import Synchronization

/// Apple's `NSFileVersion`, with Apple's members: the current version of a file (the item itself) and the
/// versions Quire keeps of it in its per-user versions store (`FileVersionStore`), conflict versions included.
/// An open class, as Apple's: subclasses override its members.
///
/// What differs from Apple: there is no iCloud (conflict versions come from
/// `FileVersion/addConflictVersion(ofItemAt:withContentsOf:)`, nonlocal versions are none), no thumbnails, every
/// version has local contents, and `localizedNameOfSavingComputer` is the host name of the computer that added the
/// version. Every member blocks on file I/O, as Apple's do. Errors are Cocoa errors (`NSCocoaErrorDomain`) whose
/// `NSUnderlyingErrorKey` is Quire's `FileVersionError`.
open class NSFileVersion: NSObject, @unchecked Sendable {
    /// Apple's `NSFileVersion.AddingOptions`.
    public struct AddingOptions: OptionSet, Sendable {
        /// The raw bits (Apple's values).
        public let rawValue: UInt
        /// An options value with these bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Move the contents into the versions store instead of copying them.
        public static let byMoving = AddingOptions(rawValue: 1 << 0)
    }

    /// Apple's `NSFileVersion.ReplacingOptions`.
    public struct ReplacingOptions: OptionSet, Sendable {
        /// The raw bits (Apple's values).
        public let rawValue: UInt
        /// An options value with these bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Move the version's contents into place; the version then leaves the store.
        public static let byMoving = ReplacingOptions(rawValue: 1 << 0)
    }

    /// The version as last read or changed (reads and writes of the flags go through the store, outside it).
    private let state: Mutex<FileVersion>

    /// The Apple-shaped object of a Quire version (presenter messages make them; a subclass calls it).
    public init(_ version: FileVersion) {
        state = Mutex(version)
        super.init()
    }

    /// The Quire version this object stands for, as last read or changed.
    public var fileVersion: FileVersion { state.withLock { $0 } }

    /// The current version of the item at `url` (the item itself), or nil when there is no item there.
    open class func currentVersionOfItem(at url: URL) -> NSFileVersion? {
        (try? FileVersion.current(ofItemAt: url)).map(NSFileVersion.init)
    }

    /// Every non-current version of the item at `url`, conflict versions included (as Apple's list does),
    /// oldest first; nil when the URL is not a file URL or the store cannot be read.
    open class func otherVersionsOfItem(at url: URL) -> [NSFileVersion]? {
        (try? FileVersion.otherVersions(ofItemAt: url))?.map(NSFileVersion.init)
    }

    /// The conflict versions of the item at `url` that are not resolved yet; nil on error.
    open class func unresolvedConflictVersionsOfItem(at url: URL) -> [NSFileVersion]? {
        (try? FileVersion.unresolvedConflictVersions(ofItemAt: url))?.map(NSFileVersion.init)
    }

    /// The version of the item at `url` whose ``persistentIdentifier`` is `persistentIdentifier` (the current
    /// version or a stored one), or nil when there is none.
    open class func version(itemAt url: URL, forPersistentIdentifier persistentIdentifier: Any) -> NSFileVersion? {
        let wanted: String
        switch persistentIdentifier {
        case let string as String: wanted = string
        case let string as NSString: wanted = string as String
        default: return nil
        }
        if let current = try? FileVersion.current(ofItemAt: url), current.id == wanted {
            return NSFileVersion(current)
        }
        return (try? FileVersion.otherVersions(ofItemAt: url))?.first { $0.id == wanted }.map(NSFileVersion.init)
    }

    /// Apple: the item's versions stored in iCloud and not downloaded. Linux has no iCloud: there are none, and
    /// `completionHandler` gets an empty list (on a queue of its own, as Apple calls it).
    open class func getNonlocalVersionsOfItem(
        at url: URL, completionHandler: @escaping @Sendable ([NSFileVersion]?, (any Error)?) -> Void
    ) {
        DispatchQueue.global().async { completionHandler(url.isFileURL ? [] : nil, nil) }
    }

    /// The async form of ``getNonlocalVersionsOfItem(at:completionHandler:)``: none on Linux.
    open class func nonlocalVersionsOfItem(at url: URL) async throws -> [NSFileVersion] {
        guard url.isFileURL else { throw AppleErrors.version(FileVersionError.notAFileURL(url)) }
        return []
    }

    /// Adds the contents of `contentsURL` as a new version of the item at `url`.
    open class func addOfItem(
        at url: URL, withContentsOf contentsURL: URL, options: AddingOptions = []
    ) throws -> NSFileVersion {
        try cocoa {
            NSFileVersion(
                try FileVersion.add(ofItemAt: url, withContentsOf: contentsURL, byMoving: options.contains(.byMoving)))
        }
    }

    /// Removes every non-current version of the item at `url`, conflict versions included.
    open class func removeOtherVersionsOfItem(at url: URL) throws {
        try cocoa { try FileVersion.removeOtherVersions(ofItemAt: url) }
    }

    /// A new folder, on the versions store's file system, to write a new version's contents into before adding
    /// them with ``AddingOptions/byMoving``.
    open class func temporaryDirectoryURLForNewVersionOfItem(at url: URL) -> URL {
        FileVersionStore.current.temporaryDirectory(forNewVersionOfItemAt: url)
    }

    /// Replaces the item at `url` with this version's contents and returns the URL written: `url` with the
    /// version's extension (another URL when the extensions differ; the item at `url` is then removed).
    @discardableResult
    open func replaceItem(at url: URL, options: ReplacingOptions = []) throws -> URL {
        try Self.cocoa { try fileVersion.replaceItem(at: url, byMoving: options.contains(.byMoving)) }
    }

    /// Removes this version from the store; removing the current version fails with
    /// `NSFileWriteNoPermissionError` (the current version is the item itself).
    open func remove() throws {
        try Self.cocoa { try fileVersion.remove() }
    }

    /// Where the version's contents are: the item itself for the current version, else a file in the store
    /// named `<UUID>` with the item's extension.
    open var url: URL { fileVersion.url }

    /// The name shown for the version: the item's file name.
    open var localizedName: String? { fileVersion.localizedName }

    /// The host name of the computer that added the version (nil for the current version).
    open var localizedNameOfSavingComputer: String? { fileVersion.savingComputerName }

    /// Apple: the name of the iCloud user who saved the version. Linux has no iCloud: nil.
    open var originatorNameComponents: PersonNameComponents? { nil }

    /// When the version's contents were last modified.
    open var modificationDate: Date? { fileVersion.modificationDate }

    /// An identifier that stays the same for this version across processes: a stored version's UUID; for the
    /// current version, one that changes when the item's contents change.
    open var persistentIdentifier: any NSCoding & NSSecureCoding { NSString(string: fileVersion.id) }

    /// Whether this is a conflict version.
    open var isConflict: Bool { fileVersion.isConflict }

    /// Whether the version is resolved; setting it to true on a conflict version resolves it in the store (a
    /// failure to write the store leaves the value unchanged, as Apple's setter reports no error either).
    open var isResolved: Bool {
        get { fileVersion.isResolved }
        set {
            guard let updated = try? fileVersion.setResolved(newValue) else { return }
            state.withLock { $0 = updated }
        }
    }

    /// Whether the version may be removed when space is needed; setting it is kept in the store.
    open var isDiscardable: Bool {
        get { fileVersion.isDiscardable }
        set {
            guard let updated = try? fileVersion.setDiscardable(newValue) else { return }
            state.withLock { $0 = updated }
        }
    }

    /// Always true: every version's contents are on this computer.
    open var hasLocalContents: Bool { true }

    /// Always false: Quire makes no thumbnails.
    open var hasThumbnail: Bool { false }

    /// Two version objects are equal when they describe the same version of the same item (a current version
    /// read before the item's contents changed is not the one read after).
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSFileVersion else { return false }
        let (mine, theirs) = (fileVersion, other.fileVersion)
        return mine.id == theirs.id && mine.itemURL == theirs.itemURL
    }

    /// A hash consistent with ``isEqual(_:)``.
    open override var hash: Int { fileVersion.id.hashValue }

    /// Runs `body`, reporting a versions-store error as the Cocoa error Apple's members throw.
    private static func cocoa<R>(_ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch {
            throw AppleErrors.version(error)
        }
    }
}
