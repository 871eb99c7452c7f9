import FileCoordination
import Foundation
import Synchronization

/// Apple's `NSFileVersion`, with Apple's members: the current version of a file (the item itself) and the
/// versions Quire keeps of it in its per-user versions store (``FileVersionStore``), conflict versions included.
///
/// What differs from Apple: there is no iCloud (conflict versions come from
/// ``FileVersion/addConflictVersion(ofItemAt:withContentsOf:)``), no thumbnails, every version has local contents,
/// and `localizedNameOfSavingComputer` is the host name of the computer that added the version. Every member
/// blocks on file I/O, as Apple's do. Errors are ``FileVersionError``s.
public final class NSFileVersion: NSObject, @unchecked Sendable {
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

    /// A version object for `version` (presenter messages create them too).
    init(_ version: FileVersion) {
        state = Mutex(version)
        super.init()
    }

    private var version: FileVersion { state.withLock { $0 } }

    /// The current version of the item at `url` (the item itself), or nil when there is no item there.
    public class func currentVersionOfItem(at url: URL) -> NSFileVersion? {
        (try? FileVersion.current(ofItemAt: url)).map(NSFileVersion.init)
    }

    /// Every non-current version of the item at `url`, conflict versions included (as Apple's list does),
    /// oldest first; nil when the URL is not a file URL or the store cannot be read.
    public class func otherVersionsOfItem(at url: URL) -> [NSFileVersion]? {
        (try? FileVersion.otherVersions(ofItemAt: url))?.map(NSFileVersion.init)
    }

    /// The conflict versions of the item at `url` that are not resolved yet; nil on error.
    public class func unresolvedConflictVersionsOfItem(at url: URL) -> [NSFileVersion]? {
        (try? FileVersion.unresolvedConflictVersions(ofItemAt: url))?.map(NSFileVersion.init)
    }

    /// Adds the contents of `contentsURL` as a new version of the item at `url`.
    public class func addOfItem(
        at url: URL, withContentsOf contentsURL: URL, options: AddingOptions = []
    ) throws -> NSFileVersion {
        NSFileVersion(
            try FileVersion.add(ofItemAt: url, withContentsOf: contentsURL, byMoving: options.contains(.byMoving)))
    }

    /// Removes every non-current version of the item at `url`, conflict versions included.
    public class func removeOtherVersionsOfItem(at url: URL) throws {
        try FileVersion.removeOtherVersions(ofItemAt: url)
    }

    /// A new folder, on the versions store's file system, to write a new version's contents into before adding
    /// them with ``AddingOptions/byMoving``.
    public class func temporaryDirectoryURLForNewVersionOfItem(at url: URL) -> URL {
        FileVersionStore.current.temporaryDirectory(forNewVersionOfItemAt: url)
    }

    /// Replaces the item at `url` with this version's contents and returns `url`.
    public func replaceItem(at url: URL, options: ReplacingOptions = []) throws -> URL {
        try version.replaceItem(at: url, byMoving: options.contains(.byMoving))
    }

    /// Removes this version from the store; the current version cannot be removed.
    public func remove() throws {
        try version.remove()
    }

    /// Where the version's contents are (the item itself for the current version).
    public var url: URL { version.url }

    /// The name shown for the version: the item's file name.
    public var localizedName: String? { version.localizedName }

    /// The host name of the computer that added the version (nil for the current version).
    public var localizedNameOfSavingComputer: String? { version.savingComputerName }

    /// When the version's contents were last modified.
    public var modificationDate: Date? { version.modificationDate }

    /// An identifier that stays the same for this version across processes (its identifier as a string).
    public var persistentIdentifier: any NSCoding & NSSecureCoding { NSString(string: version.id) }

    /// Whether this is a conflict version.
    public var isConflict: Bool { version.isConflict }

    /// Whether the version is resolved; setting it to true on a conflict version resolves it in the store (a
    /// failure to write the store leaves the value unchanged, as Apple's setter reports no error either).
    public var isResolved: Bool {
        get { version.isResolved }
        set {
            guard let updated = try? version.setResolved(newValue) else { return }
            state.withLock { $0 = updated }
        }
    }

    /// Whether the version may be removed when space is needed; setting it is kept in the store.
    public var isDiscardable: Bool {
        get { version.isDiscardable }
        set {
            guard let updated = try? version.setDiscardable(newValue) else { return }
            state.withLock { $0 = updated }
        }
    }

    /// Always true: every version's contents are on this computer.
    public var hasLocalContents: Bool { true }

    /// Always false: Quire makes no thumbnails.
    public var hasThumbnail: Bool { false }

    /// Two version objects are equal when they describe the same version of the same item.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSFileVersion else { return false }
        let (mine, theirs) = (version, other.version)
        return mine.id == theirs.id && mine.itemURL == theirs.itemURL
    }

    /// A hash consistent with ``isEqual(_:)``.
    public override var hash: Int { version.id.hashValue }
}
