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
        let records: [DocumentRecord]
        do {
            records = try await catalog.documents()
        } catch {
            logger.warning(
                "orphaned temporary files were not looked for: the catalog cannot be read",
                metadata: ["error": "\(error)"])
            return
        }
        var targets: [String: Set<String>?] = [uploadDirectory.path: nil]
        for record in records where record.origin == .registered {
            for path in record.files {
                let url = URL(fileURLWithPath: path)
                let directory = url.deletingLastPathComponent().path
                guard directory != uploadDirectory.path else { continue }
                targets[directory, default: []]?.insert(url.lastPathComponent)
            }
        }
        let cutoff = createdAt
        let directories = targets
        // Removed beneath its root, through no symbolic link, as every other file operation of the store.
        let remove: @Sendable (String) throws -> Void = { path in
            try FileDataProvider(fileURL: URL(fileURLWithPath: path), confinement: self.confinement(for: path))
                .deleteData()
        }
        let outcomes =
            (try? await blocking { Self.removeTemporaryFiles(directories, before: cutoff, remove: remove) }) ?? []
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

    /// What became of one orphaned temporary file.
    enum TemporaryFileOutcome: Sendable {
        case removed(String)
        case failed(String, String)
    }

    /// Removes, in each directory, the temporary files whose target is in its set (any target for a nil set)
    /// that are regular files last modified before `cutoff`, with `remove`. Blocking: call on the thread pool.
    static func removeTemporaryFiles(
        _ targets: [String: Set<String>?], before cutoff: Date, remove: (String) throws -> Void
    ) -> [TemporaryFileOutcome] {
        var outcomes: [TemporaryFileOutcome] = []
        let files = FileManager.default
        for (directory, names) in targets {
            guard let entries = try? files.contentsOfDirectory(atPath: directory) else { continue }
            for entry in entries.sorted() {
                guard let target = temporaryFileTarget(entry), names.map({ $0.contains(target) }) ?? true else {
                    continue
                }
                let path = directory + "/" + entry
                guard let attributes = try? files.attributesOfItem(atPath: path),
                    attributes[.type] as? FileAttributeType == .typeRegular,
                    let modified = attributes[.modificationDate] as? Date, modified < cutoff
                else { continue }
                do {
                    try remove(path)
                    outcomes.append(.removed(path))
                } catch {
                    outcomes.append(.failed(path, "\(error)"))
                }
            }
        }
        return outcomes
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
