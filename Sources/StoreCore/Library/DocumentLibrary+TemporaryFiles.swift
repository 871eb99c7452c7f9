#if canImport(Glibc)
    import Glibc
#endif
import DocumentModel
import Foundation
import Logging

extension DocumentLibrary {
    /// Removes the temporary files that writes of an earlier run left behind when the service was killed (each
    /// sink writes `.NAME.quire-XXXXXX.EXT` beside its target and renames it over the target at the end): in the
    /// store's files directory every such file; in the directories of registered documents only those whose
    /// target `NAME.EXT` is one of the store's document files there, so that other programs' files are never
    /// touched. Only regular files last modified before the library was made go: a write of this run keeps its
    /// file. Each removal is logged at info; a failure to list or remove is logged and skipped.
    public func removeOrphanedTemporaryFiles() async {
        let registered: [String]
        do {
            registered = try await catalog.documentDirectories().filter { $0 != uploadDirectory.path }
        } catch {
            logger.warning(
                "orphaned temporary files were not looked for: the catalog cannot be read",
                metadata: ["error": "\(error)"])
            return
        }
        let upload = uploadDirectory.path
        let cutoff = createdAt
        // The directories are read entry by entry (the store's may hold a million files): only the temporary
        // files old enough come back.
        let found =
            (try? await blocking { Self.temporaryFiles(in: [upload] + registered, before: cutoff) }) ?? []
        var doomed: [String] = []
        for file in found {
            if file.directory == upload {
                doomed.append(file.path)
            } else if let holders = try? await catalog.documents(holdingAnyOf: [file.target]),
                holders.contains(where: { $0.origin == .registered })
            {
                doomed.append(file.path)
            }
        }
        guard !doomed.isEmpty else { return }
        // Removed beneath its root, through no symbolic link, as every other file operation of the store.
        let remove: @Sendable (String) throws -> Void = { path in
            try FileDataProvider(fileURL: URL(fileURLWithPath: path), confinement: self.confinement(for: path))
                .deleteData()
        }
        let paths = doomed
        let outcomes = (try? await blocking { () -> [TemporaryFileOutcome] in
            paths.map { path in
                do {
                    try remove(path)
                    return .removed(path)
                } catch {
                    return .failed(path, "\(error)")
                }
            }
        }) ?? []
        for outcome in outcomes {
            switch outcome {
            case .removed(let path):
                logger.info("removed an orphaned temporary file of an interrupted write", metadata: ["path": "\(path)"])
            case .failed(let path, let error):
                logger.warning(
                    "an orphaned temporary file could not be removed",
                    metadata: ["path": "\(path)", "error": "\(error)"])
            }
        }
    }

    /// A temporary file a sink left: where it is, and the file it was to replace.
    struct TemporaryFile: Sendable {
        var directory: String
        var path: String
        /// The target's path (`NAME.EXT` beside it).
        var target: String
    }

    /// What became of one orphaned temporary file.
    enum TemporaryFileOutcome: Sendable {
        case removed(String)
        case failed(String, String)
    }

    /// The temporary files of sinks (``temporaryFileTarget(_:)``) in `directories` that are regular files last
    /// modified before `cutoff`, reading each directory entry by entry (`readdir`), so that a directory of a million
    /// files costs no more memory than one of ten. Blocking: call on the thread pool.
    static func temporaryFiles(in directories: [String], before cutoff: Date) -> [TemporaryFile] {
        var found: [TemporaryFile] = []
        let limit = cutoff.timeIntervalSince1970
        for directory in directories {
            guard let stream = opendir(directory) else { continue }
            defer { closedir(stream) }
            while let entry = readdir(stream) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                    String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                }
                // Sinks' files start with a dot: nothing else is looked at further.
                guard name.hasPrefix("."), let target = temporaryFileTarget(name) else { continue }
                let path = directory + "/" + name
                var info = stat()
                guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
                    Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9 < limit
                else { continue }
                found.append(TemporaryFile(directory: directory, path: path, target: directory + "/" + target))
            }
        }
        return found.sorted { $0.path < $1.path }
    }

    /// The file a sink's temporary file named `name` was to replace (`.NAME.quire-XXXXXX.EXT` → `NAME.EXT`), or
    /// nil when `name` is not one.
    static func temporaryFileTarget(_ name: String) -> String? {
        guard name.hasPrefix("."), let marker = name.range(of: ".quire-", options: .backwards),
            marker.lowerBound > name.startIndex
        else { return nil }
        let stem = name[name.index(after: name.startIndex)..<marker.lowerBound]
        let rest = name[marker.upperBound...]
        let random = rest.prefix(6)
        let suffix = rest.dropFirst(6)
        guard !stem.isEmpty, random.count == 6,
            random.unicodeScalars.allSatisfy({ $0.isASCII && CharacterSet.alphanumerics.contains($0) }),
            suffix.isEmpty || (suffix.hasPrefix(".") && suffix.count > 1 && !suffix.dropFirst().contains("."))
        else { return nil }
        return String(stem + suffix)
    }
}
