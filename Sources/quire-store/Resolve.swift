import ArgumentParser
import QuireCommandLine
import StoreClient

/// `quire resolve ID --reload|--save|--close`: resolves a document's conflict in a running service.
struct Resolve: AsyncParsableCommand {
    static let configuration = ResolveArguments.configuration

    @OptionGroup var arguments: ResolveArguments

    /// What `--json` prints.
    private struct Report: Encodable {
        var id: String
        var resolution: ConflictResolution
        var state: DocumentState?
        var etag: String?

        private enum CodingKeys: String, CodingKey { case id, resolution, state, etag }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(resolution, forKey: .resolution)
            try container.encode(state, forKey: .state)
            try container.encode(etag, forKey: .etag)
        }
    }

    func run() async throws {
        try await reportingFailures {
            guard let resolution = ConflictResolution(rawValue: arguments.resolution.rawValue) else {
                throw CommandFailure("unknown resolution \(arguments.resolution)", exitCode: CommandFailure.software)
            }
            let info = try await arguments.server.withClient { client in
                try await client.resolveConflict(of: arguments.id, by: resolution)
            }
            let report = Report(id: arguments.id, resolution: resolution, state: info?.state, etag: info?.etag)
            if arguments.server.json {
                StandardStreams.print(try JSONOutput.encode(report) + "\n")
            } else if let info {
                StandardStreams.print(
                    "\(arguments.id): resolved by \(resolution.rawValue); now \(info.state.rawValue), etag \(info.etag)\n"
                )
            } else {
                StandardStreams.print("\(arguments.id): resolved by close; the document left the store\n")
            }
        }
    }
}
