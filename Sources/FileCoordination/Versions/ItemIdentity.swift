import CQuireLinux
import Foundation
import QuireSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Which file a version belongs to, whatever its path: the key of the item's folder in the versions store.
///
/// The identity is stored with the file, so it follows the file through renames and moves (coordinated or not)
/// and a new file at a deleted file's path never has it:
/// - a UUID in the extended attribute `user.quire.item` (``attributeName``), set when the item gets its first
///   version and carried over by a coordinated write that replaces the file (a save that renames a new file over
///   it) — see ``FileCoordinator``;
/// - on a file system without user extended attributes (or an item that cannot have one), the device, inode and
///   birth time (`statx`): it follows renames on that file system, but not a replacement by another file, and a
///   file system that records no birth time can give a new file a deleted one's inode number.
enum ItemIdentity: Hashable, Sendable {
    /// A UUID stored in the item's extended attribute.
    case tagged(UUID)
    /// The device, inode and birth time of an item whose file system keeps no user extended attributes.
    case inode(device: UInt64, inode: UInt64, birthSeconds: Int64, birthNanoseconds: UInt32)

    /// The extended attribute that holds the identity.
    static let attributeName = "user.quire.item"

    /// The name of the item's folder in the store (`u-<uuid>` or `i-<device>-<inode>-<birth>`): never a path hash.
    var folderName: String {
        switch self {
        case .tagged(let uuid): "u-" + uuid.uuidString.lowercased()
        case .inode(let device, let inode, let seconds, let nanoseconds):
            "i-\(String(device, radix: 16))-\(String(inode, radix: 16))-\(seconds).\(nanoseconds)"
        }
    }

    /// What is at a path, as far as versions are concerned.
    enum Lookup: Equatable {
        /// An item with an identity.
        case identified(ItemIdentity)
        /// An item on a file system with extended attributes, without an identity yet (it never had a version,
        /// or it is a new file).
        case untagged
        /// No item.
        case missing
    }

    /// The identity of the item at `path` (symbolic links followed).
    /// - Throws: ``FileVersionError/systemCallFailed(call:path:errno:)`` for an error other than a missing item or
    ///   attribute (a permission denied, say).
    static func lookUp(_ path: String) throws -> Lookup {
        var buffer = [UInt8](repeating: 0, count: 64)
        let read = buffer.withUnsafeMutableBytes { raw in
            Result { () throws(SystemCallError) in
                try SystemCall.retryingOnInterrupt("getxattr", path: path) {
                    CQuire_getExtendedAttribute(path, attributeName, raw.baseAddress, raw.count)
                }
            }
        }
        switch read {
        case .success(let length):
            // Anything but a UUID (a damaged or hostile value) is no identity: the item is treated as new.
            let text = String(decoding: buffer.prefix(length), as: UTF8.self)
            guard let uuid = UUID(uuidString: text) else { return .untagged }
            return .identified(.tagged(uuid))
        case .failure(let error):
            switch error.errno {
            case ENODATA, ERANGE: return .untagged
            case ENOENT, ENOTDIR: return .missing
            case ENOTSUP: return try inode(of: path).map(Lookup.identified) ?? .missing
            case let code: throw FileVersionError.systemCallFailed(call: "getxattr", path: path, errno: code)
            }
        }
    }

    /// The identity of the item at `path`, given one now if it has none; nil when there is no item.
    /// - Throws: ``FileVersionError/systemCallFailed(call:path:errno:)`` when the attribute can be neither read
    ///   nor written for another reason than the file system's.
    static func assign(_ path: String) throws -> ItemIdentity? {
        switch try lookUp(path) {
        case .identified(let identity): return identity
        case .missing: return nil
        case .untagged: break
        }
        let uuid = UUID()
        if try tag(path, with: uuid) { return .tagged(uuid) }
        // Another process tagged it first, or this item cannot have the attribute.
        switch try lookUp(path) {
        case .identified(let identity): return identity
        case .missing: return nil
        case .untagged: return try inode(of: path)
        }
    }

    /// Gives the untagged item at `path` the identity `uuid`; false when it already has one (or disappeared), or
    /// when its file system or kind refuses user attributes (`ENOTSUP`, `EPERM`).
    /// - Throws: ``FileVersionError/systemCallFailed(call:path:errno:)`` for another error.
    @discardableResult
    static func tag(_ path: String, with uuid: UUID) throws -> Bool {
        let bytes = Array(uuid.uuidString.lowercased().utf8)
        let written = bytes.withUnsafeBytes { raw in
            Result { () throws(SystemCallError) in
                try SystemCall.retryingOnInterrupt("setxattr", path: path) {
                    CQuire_createExtendedAttribute(path, attributeName, raw.baseAddress, raw.count)
                }
            }
        }
        switch written {
        case .success: return true
        case .failure(let error):
            switch error.errno {
            case EEXIST, ENOENT, ENOTDIR, ENOTSUP, EPERM: return false
            case let code: throw FileVersionError.systemCallFailed(call: "setxattr", path: path, errno: code)
            }
        }
    }

    /// Gives the item at `path` the identity `uuid`, whatever it had (a copy about to replace the item it was made
    /// for); nothing happens where user attributes cannot be written.
    static func overwriteTag(_ path: String, with uuid: UUID) {
        let bytes = Array(uuid.uuidString.lowercased().utf8)
        _ = bytes.withUnsafeBytes { raw in
            try? SystemCall.retryingOnInterrupt("setxattr", path: path) {
                CQuire_setExtendedAttribute(path, attributeName, raw.baseAddress, raw.count)
            }
        }
    }

    /// The fallback identity of the item at `path`; nil when there is none.
    private static func inode(of path: String) throws -> ItemIdentity? {
        var (device, inode, seconds, nanoseconds): (UInt64, UInt64, Int64, UInt32) = (0, 0, 0, 0)
        do {
            try SystemCall.retryingOnInterrupt("statx", path: path) {
                CQuire_birthIdentity(path, &device, &inode, &seconds, &nanoseconds)
            }
            return .inode(device: device, inode: inode, birthSeconds: seconds, birthNanoseconds: nanoseconds)
        } catch {
            switch error.errno {
            case ENOENT, ENOTDIR: return nil
            case let code: throw FileVersionError.systemCallFailed(call: "statx", path: path, errno: code)
            }
        }
    }
}
