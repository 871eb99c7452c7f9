import ArgumentParser
import QuireCommandLine
import StoreClient

/// `quire status`: the documents of a running service, their state, and why they are not clean.
struct Status: AsyncParsableCommand {
    static let configuration = StatusArguments.configuration

    @OptionGroup var arguments: StatusArguments

    func run() async throws {
        try await reportingFailures {
            let limit = arguments.limit ?? StatusArguments.defaultLimit
            guard limit >= 1 else {
                throw CommandFailure("--limit must be at least 1, not \(limit)", exitCode: CommandFailure.usage)
            }
            let states = try Self.states(arguments.states)
            let report = try await arguments.server.withClient { client in
                // One document more than shown says whether more follow.
                let walk = client.documents(states: states, pageSize: limit < 1000 ? limit + 1 : 1000)
                var entries: [StatusReport.Entry] = []
                var more = false
                for try await summary in walk {
                    guard entries.count < limit else {
                        more = true
                        break
                    }
                    let conflict = summary.state == .conflict ? try await Self.conflict(of: summary.id, client) : nil
                    entries.append(StatusReport.Entry(summary, conflict: conflict))
                }
                // The nodes of a cluster (a service without /nodes, or one node, lists none).
                let nodes = try? await client.nodes()
                return StatusReport(
                    server: client.server, documents: entries, more: more,
                    states: states.map(\.rawValue).sorted(), nodes: nodes.flatMap { $0.cluster ? $0.nodes : nil })
            }
            StandardStreams.print(arguments.server.json ? try JSONOutput.encode(report) + "\n" : report.text)
        }
    }

    /// The states `--state` names (each option one name or several separated by commas).
    /// - Throws: ``CommandFailure`` with exit code 64 naming an unknown state.
    static func states(_ options: [String]) throws -> Set<DocumentState> {
        var states = Set<DocumentState>()
        for name in options.flatMap({ $0.split(separator: ",", omittingEmptySubsequences: false) }) {
            guard let state = DocumentState(rawValue: String(name)) else {
                throw CommandFailure(
                    "unknown state \"\(name)\" for --state: one of "
                        + DocumentState.allCases.map(\.rawValue).joined(separator: ", "),
                    exitCode: CommandFailure.usage)
            }
            states.insert(state)
        }
        return states
    }

    /// The conflict of a document listed in conflict; nil when it was resolved or closed in the meantime.
    private static func conflict(of id: String, _ client: StoreClient) async throws -> ConflictReport.Conflict? {
        do {
            return try await client.conflict(of: id).conflict
        } catch let error as StoreClientError where error.code == .problem && error.problem?.status == 404 {
            return nil
        }
    }
}
