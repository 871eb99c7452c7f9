import CoordinationArbiter
import Foundation

/// A picture of the shared arbiter for operators (`quire presenters`, `quire claims`): who presents which
/// item, who holds which path, who waits for it, since when and behind whom.
///
/// Processes are named by pid; read `/proc/<pid>/cmdline` for their command lines (the arbiter's clients
/// are processes of the same user on the same machine).
public struct CoordinationStatus: Sendable, Equatable {
    /// One registered presenter.
    public struct Presenter: Sendable, Equatable {
        /// The process that registered it.
        public let pid: Int32
        /// The presenter's number, unique within its process.
        public let presenter: UInt64
        /// The item it presents, or nil while it presents none.
        public let path: String?
        /// Its purpose identifier (coordinators with the same purpose never wait for each other).
        public let purpose: String
        /// Whether it also wants changes made without coordination reported.
        public let observesUncoordinatedChanges: Bool
    }

    /// A request named across processes: its process and its number within that process.
    public struct RequestReference: Sendable, Equatable, Hashable {
        /// The process that made the request.
        public let pid: Int32
        /// The request's number within that process.
        public let request: UInt64
    }

    /// Where a claim stands.
    public enum State: String, Sendable, Equatable {
        /// The accessor runs: the path is held.
        case holding
        /// Waiting for presenters to relinquish, save or accommodate.
        case askingPresenters = "asking-presenters"
        /// Waiting for the requests in ``Claim/blockedBy`` to end.
        case waiting
    }

    /// One intent of one coordinated access, on the path it claims.
    public struct Claim: Sendable, Equatable {
        /// The request it belongs to.
        public let request: RequestReference
        /// Its purpose identifier.
        public let purpose: String
        /// `true` for a write, `false` for a read.
        public let isWrite: Bool
        /// Apple's option names, e.g. `["forDeleting"]` or `["withoutChanges"]`.
        public let options: [String]
        /// The item the intent names (inside ``PathClaims/path`` when that is a file package).
        public let itemPath: String
        /// How long ago the access was asked for.
        public let age: Duration
        /// Where it stands.
        public let state: State
        /// The accesses it waits for (empty unless ``state`` is ``State/waiting``).
        public let blockedBy: [RequestReference]
    }

    /// The claims on one path.
    public struct PathClaims: Sendable, Equatable {
        /// The claimed path.
        public let path: String
        /// Held claims.
        public let holders: [Claim]
        /// Claims not yet granted, in arrival order.
        public let waiters: [Claim]
    }

    /// The scope the picture comes from: `"user"` (the shared arbiter) or `"process"` (this process only).
    public let scope: String
    /// The pid of the process hosting the shared arbiter, or nil if none hosts it (then nothing is held).
    public let hostPID: Int32?
    /// Every registered presenter.
    public let presenters: [Presenter]
    /// Every claimed path, sorted by path.
    public let claims: [PathClaims]

    /// Makes a status from its parts.
    public init(scope: String, hostPID: Int32?, presenters: [Presenter], claims: [PathClaims]) {
        self.scope = scope
        self.hostPID = hostPID
        self.presenters = presenters
        self.claims = claims
    }
}

extension CoordinationStatus {
    /// The status built from a host's snapshot, with `now` on the same clock as its `requestedAt` instants.
    init(scope: String, hostPID: Int32?, snapshot: WireSnapshot, now: Instant) {
        // Requests are numbered per client: name each blocker by the pid of the client whose request it is.
        var requestPIDs: [RequestID: Int32] = [:]
        for path in snapshot.claims {
            for claim in path.holders + path.waiters { requestPIDs[claim.request] = claim.pid }
        }
        func claim(_ claim: WireSnapshot.Claim) -> Claim {
            let blockers = Set(claim.blockedBy.compactMap { blocker in
                requestPIDs[blocker].map { RequestReference(pid: $0, request: Self.localNumber(blocker)) }
            })
            let state: State
            switch claim.phase {
            case .granted: state = .holding
            case .askingPresenters: state = .askingPresenters
            case .waiting: state = .waiting
            }
            let ageNanoseconds = now.nanoseconds > claim.requestedAt.nanoseconds
                ? now.nanoseconds - claim.requestedAt.nanoseconds : 0
            return Claim(
                request: RequestReference(pid: claim.pid, request: Self.localNumber(claim.request)),
                purpose: claim.purpose.rawValue, isWrite: claim.intent.writes,
                options: claim.intent.optionNames, itemPath: claim.intent.path.description,
                age: .nanoseconds(Int64(clamping: ageNanoseconds)), state: state,
                blockedBy: blockers.sorted { ($0.pid, $0.request) < ($1.pid, $1.request) })
        }
        self.init(
            scope: scope, hostPID: hostPID,
            presenters: snapshot.presenters.map {
                Presenter(
                    pid: $0.pid, presenter: $0.presenter.rawValue, path: $0.path?.description,
                    purpose: $0.purpose.rawValue, observesUncoordinatedChanges: $0.observesUncoordinatedChanges)
            },
            claims: snapshot.claims.map {
                PathClaims(path: $0.path.description, holders: $0.holders.map(claim), waiters: $0.waiters.map(claim))
            })
    }
}

extension CoordinationStatus {
    /// A request's number within its process: the shared host keeps the client's slot in the high bits.
    fileprivate static func localNumber(_ request: RequestID) -> UInt64 {
        request.rawValue & HostSession.localMask
    }
}

extension AccessIntent {
    /// True for writes.
    var writes: Bool {
        if case .writing = access { return true }
        return false
    }

    /// Apple's names of the intent's options, in declaration order.
    var optionNames: [String] {
        switch access {
        case .reading(let options):
            let names: [(AccessIntent.ReadingOptions, String)] = [
                (.withoutChanges, "withoutChanges"), (.resolvesSymbolicLink, "resolvesSymbolicLink"),
                (.immediatelyAvailableMetadataOnly, "immediatelyAvailableMetadataOnly"), (.forUploading, "forUploading"),
            ]
            return names.filter { options.contains($0.0) }.map(\.1)
        case .writing(let options):
            let names: [(AccessIntent.WritingOptions, String)] = [
                (.forDeleting, "forDeleting"), (.forMoving, "forMoving"), (.forMerging, "forMerging"),
                (.forReplacing, "forReplacing"), (.contentIndependentMetadataOnly, "contentIndependentMetadataOnly"),
            ]
            return names.filter { options.contains($0.0) }.map(\.1)
        }
    }
}
