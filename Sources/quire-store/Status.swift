import ArgumentParser
import QuireCommandLine
import StoreClient

/// `quire status`: the documents of a running service, their state, and why they are not clean.
struct Status: AsyncParsableCommand {
    static let configuration = StatusArguments.configuration

    @OptionGroup var arguments: StatusArguments

    func run() async throws {
        try await reportingFailures {
            let report = try await arguments.server.withClient { client in
                var entries: [StatusReport.Entry] = []
                for summary in try await client.documents() {
                    let conflict = summary.state == .conflict ? try await Self.conflict(of: summary.id, client) : nil
                    entries.append(StatusReport.Entry(summary, conflict: conflict))
                }
                // The nodes of a cluster (a service without /nodes, or one node, lists none).
                let nodes = try? await client.nodes()
                return StatusReport(
                    server: client.server, documents: entries,
                    nodes: nodes.flatMap { $0.cluster ? $0.nodes : nil })
            }
            StandardStreams.print(arguments.server.json ? try JSONOutput.encode(report) + "\n" : report.text)
        }
    }

    /// The conflict of a document listed in conflict; nil when it was resolved or closed in the meantime.
    private static func conflict(of id: String, _ client: StoreClient) async throws -> ConflictReport.Conflict? {
        do {
            return try await client.conflict(of: id).conflict
        } catch StoreClientError.problem(let problem) where problem.status == 404 {
            return nil
        }
    }
}
