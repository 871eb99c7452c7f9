/// Checks a recorded history against the store's promises, in Jepsen's style: what the clients were told is
/// recorded as they are told it, the store's log and final documents are read at the end, and the checker proves
/// (or refutes) that every acknowledged change is in the final history exactly once, that versions only grow,
/// that no acknowledged write was lost and that no stale write succeeded. Only acknowledged writes (a 2xx answer)
/// count: a request that failed, timed out or met a dead node may or may not have happened.
struct HistoryChecker {
    /// A write a client was told succeeded.
    struct Write: Sendable, Hashable, CustomStringConvertible {
        /// The document's id.
        var document: String
        /// What it was (`PATCH metadata`, `PUT content`, …).
        var operation: String
        /// The version its `If-Match` named, nil when it named none.
        var precondition: Int64?
        /// The version the answer said the document is at now, nil when the answer has no body (204).
        var version: Int64?
        /// The event the write must have recorded, nil for an edit (which records none).
        var event: String?
        /// Whether it may change nothing (a save with nothing to save answers the version it found).
        var mayChangeNothing = false

        var description: String {
            "\(operation) of \(document) (If-Match v\(precondition.map(String.init) ?? "-") → v\(version.map(String.init) ?? "-"))"
        }
    }

    /// An event of the final log.
    struct Event: Sendable, Hashable {
        var id: Int64
        var document: String
        var type: String
        var version: Int64?
        var contentEtag: String?
    }

    /// The acknowledged writes, in the order their answers arrived.
    var writes: [Write]
    /// The whole log at the end, in id order.
    var events: [Event]
    /// Each document's version at the end (absent when it is gone).
    var finalVersions: [String: Int64]

    /// Every broken promise, one line each; empty when the history holds.
    func violations() -> [String] {
        var found: [String] = []
        let byDocument = Dictionary(grouping: events, by: \.document)
        for (document, events) in byDocument {
            // Versions only grow, and no event is there twice.
            var last: Int64 = 0
            var previous: Event?
            for event in events {
                if let version = event.version {
                    if version <= last {
                        found.append("document \(document): event \(event.id) (\(event.type)) has version \(version) after \(last)")
                    }
                    last = max(last, version)
                }
                if let previous, previous.type == "changed", event.type == "changed", previous.contentEtag != nil,
                    previous.contentEtag == event.contentEtag
                {
                    found.append("document \(document): events \(previous.id) and \(event.id) record one change twice")
                }
                previous = event
            }
            if let final = finalVersions[document], final < last {
                found.append("document \(document): its version is \(final) but the log reached \(last)")
            }
        }
        let writesByDocument = Dictionary(grouping: writes, by: \.document)
        for (document, writes) in writesByDocument {
            let logged = byDocument[document] ?? []
            for write in writes {
                if write.mayChangeNothing, let precondition = write.precondition, write.version == precondition {
                    continue  // nothing to do, nothing done
                }
                // No acknowledged write is lost: its version is in the history, and its event is there once.
                if let version = write.version, let final = finalVersions[document], version > final {
                    found.append("\(write): acknowledged at version \(version), but the document is at \(final)")
                }
                if let event = write.event {
                    let matching = logged.filter { $0.type == event && (write.version == nil || $0.version == write.version) }
                    if matching.count != 1 {
                        found.append("\(write): \(matching.count) \(event) events in the log, not 1")
                    }
                }
                // No stale write succeeds: nothing else acknowledged changed the document between the version the
                // write named and the one it made.
                if let precondition = write.precondition, let version = write.version {
                    if version <= precondition {
                        found.append("\(write): the version did not grow")
                    }
                    for other in writes where other != write {
                        if let between = other.version, between > precondition, between < version {
                            found.append("\(write) succeeded although \(other) changed the document in between")
                        }
                    }
                }
            }
            // Two acknowledged writes never leave one version.
            let versions = writes.filter { !($0.mayChangeNothing && $0.version == $0.precondition) }.compactMap(\.version)
            if Set(versions).count != versions.count {
                found.append("document \(document): two acknowledged writes answered the same version: \(versions.sorted())")
            }
        }
        return found
    }
}
