import Crypto
import Foundation
import QuireTestSupport
import StoreClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a store answered to a ``History``, in terms that do not depend on the store's ids, hashes or clocks:
/// each step's status, each document's final state, and each document's events (type and version).
struct HistoryOutcome: Equatable, CustomStringConvertible {
    /// A document at the end: nil when it is gone (404).
    struct Document: Equatable {
        var state: String
        var version: Int64
        var title: String?
        var pageCount: Int
        var conflict: String?
    }

    /// Each step's HTTP status; for a program's rewrite, 1 when its change was recorded, 0 when it was not made
    /// (the document has no file, or is in conflict), -1 when the change was never recorded.
    var statuses: [Int] = []
    var documents: [Document?] = []
    /// Each document's events as `type@version`, in log order.
    var events: [[String]] = []

    var description: String {
        "statuses \(statuses)\n" + documents.enumerated().map { "  #\($0.offset): \($0.element.map { "\($0)" } ?? "gone") events \(events[$0.offset])" }
            .joined(separator: "\n")
    }

    /// The first difference from `other`, for a failure's message; nil when there is none.
    func firstDifference(from other: HistoryOutcome, steps: [History.Step]) -> String? {
        for index in 0..<max(statuses.count, other.statuses.count) {
            let mine = index < statuses.count ? statuses[index] : nil
            let theirs = index < other.statuses.count ? other.statuses[index] : nil
            if mine != theirs {
                return "step \(index + 1) (\(index < steps.count ? "\(steps[index])" : "?")): \(mine.map(String.init) ?? "none") against \(theirs.map(String.init) ?? "none")"
            }
        }
        for index in 0..<max(documents.count, other.documents.count) {
            let mine = index < documents.count ? documents[index] : nil
            let theirs = index < other.documents.count ? other.documents[index] : nil
            if mine != theirs { return "document #\(index): \(String(describing: mine)) against \(String(describing: theirs))" }
            let myEvents = index < events.count ? events[index] : []
            let theirEvents = index < other.events.count ? other.events[index] : []
            if myEvents != theirEvents { return "document #\(index)'s events: \(myEvents) against \(theirEvents)" }
        }
        return nil
    }
}

/// Runs a ``History`` against a store: one node, or the nodes of a cluster with each request sent to a node the
/// seeded generator picks. One client, one step at a time; a program's rewrite waits (bounded) until the store
/// recorded it, so that the next step meets the same document on every store.
struct HistoryRunner {
    /// One answer.
    struct Answer {
        var status: Int
        var etag: String?
        var body: Data
    }

    /// What the runner knows of a document.
    private struct Known {
        var id: String
        var current: String?
        var stale: String?
        var contentEtag: String?
    }

    let nodes: [String]
    /// Where registered files are put (a root of the store).
    let root: URL
    /// Under faults: a request that fails (a dead or stopped node, a lost database) is recorded as status 0 and
    /// the history goes on; requests go to the nodes `reachable` names; a rewrite waits less.
    let underFaults: Bool
    /// The indexes of the nodes requests may go to now.
    var reachable: @Sendable () -> [Int] = { [0] }
    /// The writes the store acknowledged, as the client was told them.
    private(set) var journal: [HistoryChecker.Write] = []
    private var random: SeededGenerator
    private var documents: [Known] = []
    private let session: URLSession

    init(nodes: [String], root: URL, seed: UInt64, underFaults: Bool = false) {
        self.nodes = nodes
        self.root = root
        self.underFaults = underFaults
        let count = nodes.count
        reachable = { Array(0..<count) }
        random = SeededGenerator(seed: seed ^ 0x5EED)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = underFaults ? 20 : 30
        session = URLSession(configuration: configuration)
    }

    /// The same runner, reading its documents through `node` only.
    func reading(from node: String) -> HistoryRunner {
        var copy = HistoryRunner(nodes: [node], root: root, seed: 0, underFaults: underFaults)
        copy.documents = documents
        return copy
    }

    /// The ids of the documents the history made, in the order it made them.
    var documentIDs: [String] { documents.map(\.id) }

    /// Runs every step, then reads each document and its events (from the first node).
    mutating func run(_ history: History) async throws -> HistoryOutcome {
        var statuses: [Int] = []
        for (index, step) in history.steps.enumerated() {
            statuses.append(try await perform(step, index: index, seed: history.seed))
        }
        return try await outcome(statuses: statuses)
    }

    /// Runs step `index` of `history`; its status.
    mutating func perform(_ history: History, step index: Int) async throws -> Int {
        try await perform(history.steps[index], index: index, seed: history.seed)
    }

    /// Each document and its events, read from the first node.
    mutating func outcome(statuses: [Int]) async throws -> HistoryOutcome {
        var outcome = HistoryOutcome()
        outcome.statuses = statuses
        for known in documents {
            // Bounded: a node that just came back, or a database that restarts, answers 503 for a while.
            var answer = try await send("GET", "/documents/\(known.id)", node: nodes[0])
            let deadline = ContinuousClock.now + .seconds(30)
            while answer.status != 200, answer.status != 404, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
                answer = try await send("GET", "/documents/\(known.id)", node: nodes[0])
            }
            if answer.status == 404 {
                outcome.documents.append(nil)
                continue
            }
            guard answer.status == 200, let info = try? JSONDecoder().decode(Info.self, from: answer.body) else {
                // Still no answer after 30 s: a difference to report, not a reason to stop the run.
                outcome.documents.append(
                    .init(state: "unreadable (status \(answer.status))", version: 0, title: nil, pageCount: 0, conflict: nil))
                continue
            }
            outcome.documents.append(
                .init(
                    state: info.state, version: info.version, title: info.metadata.title, pageCount: info.pageCount,
                    conflict: info.conflict))
        }
        let events = try await Self.allEvents(from: nodes[0])
        outcome.events = documents.map { known in
            events.filter { $0.document == known.id }.map { "\($0.type.rawValue)@\($0.version.map(String.init) ?? "nil")" }
        }
        return outcome
    }

    /// Every event of the log, read through `node`'s feed from the start.
    static func allEvents(from node: String) async throws -> [DocumentEvent] {
        let client = try StoreClient(server: node)
        defer { Task { try? await client.shutdown() } }
        let last = try await client.health().lastEventId
        guard last > 0 else { return [] }
        let recorder = EventRecorder(client: client, after: 0)
        defer { recorder.cancel() }
        return try await recorder.waitForEvents(Int(last))
    }

    private mutating func perform(_ step: History.Step, index: Int, seed: UInt64) async throws -> Int {
        switch step {
        case .upload(let fixture):
            let answer = try await send(
                "POST", "/documents", body: try Self.fixture(fixture), contentType: "application/pdf")
            try adopt(answer)
            return answer.status
        case .register(let fixture):
            let file = root.appendingPathComponent("history-\(seed)-\(index).pdf")
            try Self.fixture(fixture).write(to: file)
            let body = try JSONEncoder().encode(["files": [file.path]])
            let answer = try await send("POST", "/documents", body: body, contentType: "application/json")
            try adopt(answer)
            return answer.status
        case .retitle(let document, let validator):
            let body = Data(#"{"title": "title \#(index + 1)"}"#.utf8)
            return try await write(
                document, "PATCH", "/metadata", validator, body: body, contentType: "application/merge-patch+json")
        case .annotate(let document, let validator):
            let body = Data(
                #"{"kind": "note", "page": 1, "rect": {"x": 72, "y": 72, "width": 20, "height": 20}, "contents": "\#(index + 1)"}"#
                    .utf8)
            return try await write(document, "POST", "/annotations", validator, body: body, contentType: "application/json")
        case .save(let document, let validator):
            return try await write(document, "POST", "/save", validator)
        case .put(let document, let fixture, let validator):
            // Bytes the document does not hold: a PUT of the same bytes records a change all the same, which a
            // reader of the log could not tell from a change recorded twice.
            var bytes = try Self.fixture(fixture)
            if document < documents.count, let held = documents[document].contentEtag {
                bytes = try Self.fixture(differentFrom: held, startingWith: fixture)
            }
            return try await write(document, "PUT", "/content", validator, body: bytes, contentType: "application/pdf")
        case .resolve(let document, let resolution, let validator):
            let body = Data(#"{"resolution": "\#(resolution)"}"#.utf8)
            return try await write(
                document, "POST", "/conflict/resolve", validator, body: body, contentType: "application/json")
        case .delete(let document, let validator):
            return try await write(document, "DELETE", "", validator)
        case .rewrite(let document, let fixture):
            return try await rewrite(document, fixture)
        }
    }

    /// A write to document `document` (a path under `/documents/{id}`), then what the document is now.
    private mutating func write(
        _ document: Int, _ method: String, _ suffix: String, _ validator: History.Validator, body: Data? = nil,
        contentType: String? = nil
    ) async throws -> Int {
        guard document < documents.count else { return 0 }  // its creation failed
        let known = documents[document]
        let ifMatch: String? =
            switch validator {
            case .fresh: known.current
            case .stale: known.stale ?? #""0000-0""#
            case .missing: nil
            }
        let answer = try await send(
            method, "/documents/\(known.id)" + suffix, body: body, contentType: contentType, ifMatch: ifMatch)
        if (200..<300).contains(answer.status) {
            let event: String? =
                switch suffix {
                case "/content": "changed"
                case "/save": "saved"
                case "/conflict/resolve": "resolved"
                case "": "deleted"
                default: nil
                }
            let version = (try? JSONDecoder().decode(Info.self, from: answer.body))?.version
            journal.append(
                HistoryChecker.Write(
                    document: known.id, operation: "\(method) \(suffix.isEmpty ? "document" : String(suffix.dropFirst()))",
                    precondition: ifMatch.flatMap(Self.version(in:)), version: version, event: event,
                    mayChangeNothing: suffix == "/save"))
        }
        try await refresh(document)
        return answer.status
    }

    /// A program that does not coordinate writes `fixture` (or, when the file holds those bytes already, the next
    /// fixture) over the document's file; waits (bounded) until the store recorded the change.
    private mutating func rewrite(_ document: Int, _ fixture: String) async throws -> Int {
        guard document < documents.count else { return 0 }
        let info = try await send("GET", "/documents/\(documents[document].id)", node: nodes[0])
        guard info.status == 200, let decoded = try? JSONDecoder().decode(Info.self, from: info.body),
            decoded.state != "deleted", decoded.state != "conflict", let path = decoded.files.first?.path
        else {
            // No file, or one whose document is in conflict already: a write to it changes nothing the store
            // records (the document keeps the version its edits were made on) until the conflict is resolved.
            return 0
        }
        let bytes = try Self.fixture(differentFrom: decoded.contentEtag, startingWith: fixture)
        try bytes.write(to: URL(fileURLWithPath: path), options: .atomic)
        let deadline = ContinuousClock.now + .seconds(underFaults ? 3 : 15)
        while ContinuousClock.now < deadline {
            let now = try await send("GET", "/documents/\(documents[document].id)", node: nodes[0])
            if now.status == 200, let current = try? JSONDecoder().decode(Info.self, from: now.body),
                current.version > decoded.version
            {
                try await refresh(document)
                return 1
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        return -1
    }

    /// Takes a new document from a creation's answer.
    private mutating func adopt(_ answer: Answer) throws {
        guard answer.status == 201 else { return }
        let info = try JSONDecoder().decode(Info.self, from: answer.body)
        documents.append(
            Known(id: info.id, current: answer.etag, stale: nil, contentEtag: info.contentEtag))
    }

    /// Reads the document's validator now; the one before becomes its stale one.
    private mutating func refresh(_ document: Int) async throws {
        let answer = try await send("GET", "/documents/\(documents[document].id)")
        guard answer.status == 200, let etag = answer.etag, etag != documents[document].current else { return }
        documents[document].stale = documents[document].current
        documents[document].current = etag
        documents[document].contentEtag = (try? JSONDecoder().decode(Info.self, from: answer.body))?.contentEtag
    }

    /// Sends a request to `node`, or to a node the generator picks.
    private mutating func send(
        _ method: String, _ path: String, body: Data? = nil, contentType: String? = nil, ifMatch: String? = nil,
        node: String? = nil
    ) async throws -> Answer {
        let choices = reachable()
        let target = node ?? nodes[choices.isEmpty ? 0 : choices[random.below(choices.count)]]
        var request = URLRequest(url: URL(string: target + path)!)
        request.httpMethod = method
        request.httpBody = body
        if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        if let ifMatch { request.setValue(ifMatch, forHTTPHeaderField: "If-Match") }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch where underFaults {
            return Answer(status: 0, etag: nil, body: Data())  // not acknowledged: it may or may not have happened
        }
        let http = response as? HTTPURLResponse
        return Answer(
            status: http?.statusCode ?? 0, etag: http?.value(forHTTPHeaderField: "ETag"), body: data)
    }

    /// The fixture's bytes.
    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture(name)))
    }

    /// The bytes of `first`, or of the next fixture whose content tag is not `tag`.
    static func fixture(differentFrom tag: String, startingWith first: String) throws -> Data {
        let names = History.fixtures
        let start = names.firstIndex(of: first) ?? 0
        var bytes = try fixture(first)
        for offset in 0..<names.count {
            bytes = try fixture(names[(start + offset) % names.count])
            if Self.tag(bytes) != tag { break }
        }
        return bytes
    }

    /// The version a document validator (`"<content>-<version>"`) names; nil for another tag.
    static func version(in validator: String) -> Int64? {
        guard let dash = validator.lastIndex(of: "-") else { return nil }
        return Int64(validator[validator.index(after: dash)...].filter(\.isNumber))
    }

    /// The content tag of `bytes` in header form.
    static func tag(_ bytes: Data) -> String {
        "\"" + SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined() + "\""
    }

    /// The members of a document's info the runner reads.
    struct Info: Decodable {
        struct File: Decodable { var path: String }
        struct Metadata: Decodable { var title: String? }
        var id: String
        var version: Int64
        var contentEtag: String
        var state: String
        var conflict: String?
        var pageCount: Int
        var metadata: Metadata
        var files: [File]
    }
}
