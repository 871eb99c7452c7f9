import Foundation
import StoreClient

/// What `quire status` prints: the first documents of the service with their state and why they are not clean,
/// and whether more follow.
struct StatusReport: Encodable {
    /// One document.
    struct Entry: Encodable {
        var id: String
        var state: DocumentState
        var conflict: ConflictReport.Conflict?
        var why: String?
        var title: String?
        var pageCount: Int
        var size: Int
        var etag: String
        var updatedAt: Date

        init(_ summary: DocumentSummary, conflict: ConflictReport.Conflict?) {
            id = summary.id
            state = summary.state
            self.conflict = conflict
            title = summary.title
            pageCount = summary.pageCount
            size = summary.size
            etag = summary.etag
            updatedAt = summary.updatedAt
            why = Self.why(state: summary.state, conflict: conflict)
        }

        /// Why a document is not clean, in a few words; nil when it is.
        static func why(state: DocumentState, conflict: ConflictReport.Conflict?) -> String? {
            switch state {
            case .clean: nil
            case .dirty: "unsaved edits"
            case .deleted: "its files are gone"
            case .damaged: "a file is not a readable PDF"
            case .conflict:
                conflict.map { "\($0.type.rawValue) of \($0.file)" } ?? "conflict (it changed while being read)"
            }
        }

        private enum CodingKeys: String, CodingKey {
            case id, state, conflict, why, title, pageCount, size, etag, updatedAt
        }

        /// Encodes every member, null when absent, so that each entry has the same keys.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(state, forKey: .state)
            try container.encode(conflict, forKey: .conflict)
            try container.encode(why, forKey: .why)
            try container.encode(title, forKey: .title)
            try container.encode(pageCount, forKey: .pageCount)
            try container.encode(size, forKey: .size)
            try container.encode(etag, forKey: .etag)
            try container.encode(updatedAt, forKey: .updatedAt)
        }
    }

    var server: String
    var documents: [Entry]
    /// Whether documents beyond those shown follow (`--limit` stopped the listing).
    var more: Bool
    /// The states asked for (`--state`), sorted; empty for every state. Only the text names them.
    var states: [String]
    /// A cluster's nodes; nil (and absent from the JSON) for one node.
    var nodes: [ServiceNodes.Node]?

    private enum CodingKeys: String, CodingKey {
        case server, documents, more, nodes
    }

    /// A table for people: a header and one row per document, columns as wide as their widest cell, then the count
    /// line (``countLine``), then a cluster's nodes.
    var text: String {
        documentsText + (nodes.map(Self.nodesText) ?? "")
    }

    /// How many documents were shown, in which states, and whether more follow: `100 documents shown (state:
    /// dirty); more follow — raise --limit`.
    var countLine: String {
        var line = "\(documents.count) document\(documents.count == 1 ? "" : "s") shown"
        if !states.isEmpty { line += " (state: \(states.joined(separator: ", ")))" }
        if more { line += "; more follow — raise --limit" }
        return line + "\n"
    }

    /// The cluster's nodes: a blank line, then a table (ID, ADDRESS, VERSION, STARTED, LAST HEARTBEAT, OPEN,
    /// OWNED, LIVE).
    static func nodesText(_ nodes: [ServiceNodes.Node]) -> String {
        let header = ["NODE", "ADDRESS", "VERSION", "STARTED", "LAST HEARTBEAT", "OPEN", "OWNED", "LIVE"]
        let rows = nodes.map {
            [
                $0.id, $0.address, $0.version, Self.timestamp($0.startedAt), Self.timestamp($0.lastHeartbeat),
                String($0.openDocuments), String($0.ownedDocuments), $0.live ? "yes" : "no",
            ]
        }
        return "\n" + table(header: header, rows: rows, rightAligned: [5, 6])
    }

    /// A date as the service writes it: RFC 3339 in UTC, with milliseconds.
    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// Rows under a header, columns as wide as their widest cell, the last one unpadded.
    static func table(header: [String], rows: [[String]], rightAligned: Set<Int>) -> String {
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        return ([header] + rows).map { cells in
            cells.indices.map { column -> String in
                let cell = cells[column]
                if column == cells.count - 1 { return cell }
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return rightAligned.contains(column) ? padding + cell : cell + padding
            }
            .joined(separator: "  ")
        }
        .joined(separator: "\n") + "\n"
    }

    /// The documents: a table for people, one row per document.
    private var documentsText: String {
        guard !documents.isEmpty else {
            return "no documents at \(server)" + (states.isEmpty ? "" : " (state: \(states.joined(separator: ", ")))")
                + "\n"
        }
        let header = ["ID", "STATE", "WHY", "PAGES", "SIZE", "TITLE"]
        let rows = documents.map { entry in
            [
                entry.id, entry.state.rawValue, entry.why ?? "-", String(entry.pageCount),
                Self.byteCount(entry.size), entry.title ?? "-",
            ]
        }
        return Self.table(header: header, rows: rows, rightAligned: [3, 4]) + countLine
    }

    /// `812 B`, `4.2 KiB`, `1.5 MiB`.
    static func byteCount(_ bytes: Int) -> String {
        guard bytes >= 1024 else { return "\(bytes) B" }
        var value = Double(bytes)
        for unit in ["KiB", "MiB", "GiB"] {
            value /= 1024
            if value < 1024 || unit == "GiB" { return String(format: "%.1f %@", value, unit) }
        }
        return "\(bytes) B"
    }
}
