import FileCoordination

/// What `quire presenters` prints: every registered presenter, by process.
public struct PresentersReport: Encodable, Sendable {
    /// One presenter, with its process's command line.
    public struct Entry: Encodable, Sendable {
        /// The process that registered it.
        public let pid: Int32
        /// That process's command line ("?" if it is gone).
        public let command: String
        /// The presenter's number within its process.
        public let presenter: UInt64
        /// The presented item, or nil.
        public let path: String?
        /// Its purpose identifier.
        public let purpose: String
        /// Whether it also hears of changes made without coordination.
        public let observesUncoordinatedChanges: Bool

        private enum CodingKeys: String, CodingKey {
            case pid, command, presenter, path, purpose, observesUncoordinatedChanges
        }

        /// Encodes every key, `path` as null when the presenter presents nothing.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(pid, forKey: .pid)
            try container.encode(command, forKey: .command)
            try container.encode(presenter, forKey: .presenter)
            try container.encode(path, forKey: .path)
            try container.encode(purpose, forKey: .purpose)
            try container.encode(observesUncoordinatedChanges, forKey: .observesUncoordinatedChanges)
        }
    }

    /// `user` (the shared arbiter) or `process`.
    public let scope: String
    /// The pid hosting the shared arbiter, or nil if none runs.
    public let hostPID: Int32?
    /// Every presenter, sorted by pid, then number.
    public let presenters: [Entry]

    private enum CodingKeys: String, CodingKey { case scope, hostPID, presenters }

    /// Encodes every key, `hostPID` as null when no process hosts the arbiter.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(scope, forKey: .scope)
        try container.encode(hostPID, forKey: .hostPID)
        try container.encode(presenters, forKey: .presenters)
    }

    /// Builds the report from a status; `commandLine` names a process (default: its `/proc` command line).
    public init(_ status: CoordinationStatus, commandLine: (Int32) -> String = ProcessCommandLine.of) {
        scope = status.scope
        hostPID = status.hostPID
        var names: [Int32: String] = [:]
        presenters = status.presenters.sorted { ($0.pid, $0.presenter) < ($1.pid, $1.presenter) }.map { presenter in
            let command = names[presenter.pid] ?? commandLine(presenter.pid)
            names[presenter.pid] = command
            return Entry(
                pid: presenter.pid, command: command, presenter: presenter.presenter, path: presenter.path,
                purpose: presenter.purpose, observesUncoordinatedChanges: presenter.observesUncoordinatedChanges)
        }
    }

    /// The readable form: a header line, then a table (PID, PRESENTER, UNCOORDINATED, PATH, COMMAND).
    public var text: String {
        var lines = [StatusHeader.line(scope: scope, hostPID: hostPID)]
        guard !presenters.isEmpty else { return (lines + ["no presenters"]).joined(separator: "\n") + "\n" }
        let rows = [["PID", "PRESENTER", "UNCOORDINATED", "PATH", "COMMAND"]] + presenters.map {
            [String($0.pid), String($0.presenter), $0.observesUncoordinatedChanges ? "yes" : "no", $0.path ?? "-", $0.command]
        }
        lines += TextTable.lines(rows)
        return lines.joined(separator: "\n") + "\n"
    }
}

/// The first line of the status reports.
enum StatusHeader {
    static func line(scope: String, hostPID: Int32?) -> String {
        if scope == "process" { return "scope: process (this process only)" }
        return "scope: \(scope); arbiter: " + (hostPID.map { "hosted by pid \($0)" } ?? "not running (nothing is held)")
    }
}

/// Left-aligned columns separated by two spaces; the last column is not padded.
enum TextTable {
    static func lines(_ rows: [[String]], indent: String = "") -> [String] {
        let columns = rows.map(\.count).max() ?? 0
        let widths = (0..<columns).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        return rows.map { row in
            indent + row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }.joined(separator: "  ")
        }
    }
}
