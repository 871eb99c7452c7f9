import CoordinationArbiter
import Foundation

/// A version as it travels in a version notice (``VersionNotice/version``), to the presenters of its item in this
/// process and in the others: `string id, string itemPath, string storeDirectory, u64 modificationDate (the bits
/// of a Double, seconds since 1970), string localizedName, optional string savingComputer, u8 flags (1 conflict,
/// 2 resolved, 4 discardable), string itemFolder`, in the wire protocol's encodings. The item's folder in the store
/// (its identity) came last, after versions were kept by identity: a notice without it is of a version kept by path.
extension FileVersion {
    /// The encoding, or nil for a stored version whose description would exceed
    /// ``WireProtocol/maximumVersionLength`` (a name of tens of kilobytes: its notice is not sent).
    var noticeEncoding: [UInt8]? {
        var counter = WireSizeCounter(frameType: .versionsChanged)
        guard (try? counter.write(self)) != nil, counter.size <= WireProtocol.maximumVersionLength else { return nil }
        return [UInt8](unsafeUninitializedCapacity: counter.size) { buffer, initializedCount in
            var writer = WireBufferWriter(UnsafeMutableRawBufferPointer(buffer))
            writer.write(self)
            initializedCount = counter.size
        }
    }

    /// Reads a version back from a notice; nil for bytes that are not a stored version's encoding (a version
    /// identifier that is not a UUID, a relative path, trailing bytes).
    init?(noticeEncoding bytes: [UInt8]) {
        let decoded = bytes.withUnsafeBytes { raw -> FileVersion? in
            var reader = WireReader(raw, frameType: .versionsChanged)
            guard let version = try? reader.readFileVersion(), reader.remainingCount == 0 else { return nil }
            return version
        }
        guard let decoded else { return nil }
        self = decoded
    }
}

extension WireSink {
    /// Adds a stored version (layout in ``FileVersion``'s notice extension).
    mutating func write(_ version: FileVersion) throws(Failure) {
        try writeString(version.id)
        try writeString(FileVersionStore.standardizedPath(version.itemURL))
        try writeString(version.store.directory.path)
        write((version.modificationDate ?? Date(timeIntervalSince1970: 0)).timeIntervalSince1970.bitPattern)
        try writeString(version.localizedName ?? "")
        try write(version.savingComputerName) { sink, name throws(Failure) in try sink.writeString(name) }
        write(UInt8((version.isConflict ? 1 : 0) | (version.isResolved ? 2 : 0) | (version.isDiscardable ? 4 : 0)))
        try writeString(version.itemKey.folderName)
    }
}

extension WireReader {
    /// Reads a stored version written by `WireSink.write(_ version:)`.
    mutating func readFileVersion() throws(WireError) -> FileVersion {
        let id = try readString()
        let itemPath = try readString()
        let directory = try readString()
        let seconds = Double(bitPattern: try read(UInt64.self))
        let localizedName = try readString()
        let savingComputer = try readOptional("savingComputer") { reader throws(WireError) in try reader.readString() }
        let flags = try readTag()
        let folder = remainingCount > 0 ? try readString() : FileVersionStore.pathFolderName(itemPath)
        guard FileVersionRecord.isValidIdentifier(id), itemPath.hasPrefix("/"), directory.hasPrefix("/"),
            seconds.isFinite, flags < 8, FileVersionStore.isValidFolderName(folder)
        else { throw badTag("FileVersion", flags) }
        let store = FileVersionStore(directory: URL(fileURLWithPath: directory, isDirectory: true))
        let key: FileVersionStore.ItemKey =
            folder == FileVersionStore.pathFolderName(itemPath) ? .path(itemPath) : .identity(folder)
        return FileVersion(
            id: id, itemURL: URL(fileURLWithPath: itemPath),
            url: store.dataURL(id: id, name: localizedName, in: store.itemFolder(key)),
            isCurrent: false, modificationDate: Date(timeIntervalSince1970: seconds), localizedName: localizedName,
            savingComputerName: savingComputer, isConflict: flags & 1 != 0, isResolved: flags & 2 != 0,
            isDiscardable: flags & 4 != 0, store: store, itemKey: key)
    }
}
