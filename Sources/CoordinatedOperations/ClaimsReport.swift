import FileCoordination

/// What `quire claims` prints: for each claimed path, who holds it and who waits, behind whom.
public struct ClaimsReport: Encodable, Sendable {
    /// A request named across processes.
    public struct Reference: Encodable, Sendable, Hashable {
        /// The requesting process.
        public let pid: Int32
        /// The request's number within that process.
        public let request: UInt64
    }

    /// One claim, with its process's command line.
    public struct Claim: Encodable, Sendable {
        /// The requesting process.
        public let pid: Int32
        /// The request's number within that process.
        public let request: UInt64
        /// That process's command line ("?" if it is gone).
        public let command: String
        /// `read` or `write`.
        public let access: String
        /// Apple's option names, e.g. `forDeleting`.
        public let options: [String]
        /// The item the intent names.
        public let itemPath: String
        /// `holding`, `asking-presenters` or `waiting`.
        public let state: String
        /// Seconds since the access was asked for.
        public let ageSeconds: Double
        /// The requests it waits for.
        public let blockedBy: [Reference]
        /// Its purpose identifier.
        public let purpose: String
    }

    /// The claims on one path.
    public struct Path: Encodable, Sendable {
        /// The claimed path.
        public let path: String
        /// Held claims.
        public let holders: [Claim]
        /// Waiting claims, in arrival order.
        public let waiters: [Claim]
    }

    /// `user` (the shared arbiter) or `process`.
    public let scope: String
    /// The pid hosting the shared arbiter, or nil if none runs.
    public let hostPID: Int32?
    /// Every claimed path, sorted.
    public let claims: [Path]

    private enum CodingKeys: String, CodingKey { case scope, hostPID, claims }

    /// Encodes every key, `hostPID` as null when no process hosts the arbiter.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(scope, forKey: .scope)
        try container.encode(hostPID, forKey: .hostPID)
        try container.encode(claims, forKey: .claims)
    }

    /// Builds the report from a status; `commandLine` names a process (default: its `/proc` command line).
    public init(_ status: CoordinationStatus, commandLine: (Int32) -> String = ProcessCommandLine.of) {
        scope = status.scope
        hostPID = status.hostPID
        var names: [Int32: String] = [:]
        func claim(_ claim: CoordinationStatus.Claim) -> Claim {
            let pid = claim.request.pid
            let command = names[pid] ?? commandLine(pid)
            names[pid] = command
            let age = claim.age.components
            return Claim(
                pid: pid, request: claim.request.request, command: command, access: claim.isWrite ? "write" : "read",
                options: claim.options, itemPath: claim.itemPath, state: claim.state.rawValue,
                ageSeconds: Double(age.seconds) + Double(age.attoseconds) / 1e18,
                blockedBy: claim.blockedBy.map { Reference(pid: $0.pid, request: $0.request) }, purpose: claim.purpose)
        }
        claims = status.claims.map { Path(path: $0.path, holders: $0.holders.map(claim), waiters: $0.waiters.map(claim)) }
    }

    /// The readable form: a header line, then per path its holders and waiters, one line each (state, pid and
    /// request, access and options, age, what it is blocked by, command line).
    public var text: String {
        var lines = [StatusHeader.line(scope: scope, hostPID: hostPID)]
        if claims.isEmpty { lines.append("no claims") }
        for path in claims {
            lines.append(path.path)
            let rows = (path.holders + path.waiters).map { claim in
                [
                    claim.state, "pid \(claim.pid) (request \(claim.request))",
                    ([claim.access] + claim.options).joined(separator: " "),
                    "age " + Self.seconds(claim.ageSeconds),
                    claim.blockedBy.isEmpty
                        ? "-" : "blocked by " + claim.blockedBy.map { "pid \($0.pid) (request \($0.request))" }
                            .joined(separator: ", "),
                    claim.itemPath == path.path ? claim.command : "\(claim.command)  [item \(claim.itemPath)]",
                ]
            }
            lines += TextTable.lines(rows, indent: "  ")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func seconds(_ value: Double) -> String {
        value < 10 ? String(Double(Int(value * 100)) / 100) + "s" : String(Int(value)) + "s"
    }
}
