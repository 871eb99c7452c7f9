import ArgumentParser
import Foundation
import QuireCommandLine
import StoreClient

/// `quire versions ID [--restore V]`: lists, or restores, the versions a running service kept of a document.
struct Versions: AsyncParsableCommand {
    static let configuration = VersionsArguments.configuration

    @OptionGroup var arguments: VersionsArguments

    /// What `--json` prints when listing.
    private struct Listing: Encodable {
        var id: String
        var versions: [DocumentVersion]
    }

    /// What `--json` prints after a restore.
    private struct Restored: Encodable {
        var id: String
        var restored: String
        var state: DocumentState
        var etag: String
    }

    func run() async throws {
        try await reportingFailures {
            if let version = arguments.restore {
                let info = try await arguments.server.withClient { client in
                    let etag = try await client.document(arguments.id).etag
                    return try await client.restoreVersion(version, of: arguments.id, ifMatch: etag)
                }
                if arguments.server.json {
                    let report = Restored(id: arguments.id, restored: version, state: info.state, etag: info.etag)
                    StandardStreams.print(try JSONOutput.encode(report) + "\n")
                } else {
                    StandardStreams.print(
                        "\(arguments.id): restored version \(version); now \(info.state.rawValue), etag \(info.etag)\n")
                }
                return
            }
            let versions = try await arguments.server.withClient { client in
                try await client.versions(of: arguments.id)
            }
            if arguments.server.json {
                StandardStreams.print(try JSONOutput.encode(Listing(id: arguments.id, versions: versions)) + "\n")
            } else if versions.isEmpty {
                StandardStreams.print("\(arguments.id): no versions\n")
            } else {
                StandardStreams.print(versions.map(Self.line).joined())
            }
        }
    }

    /// `ID  DATE  SIZE bytes  conflict|resolved conflict|version  FILE`.
    private static func line(_ version: DocumentVersion) -> String {
        let kind = version.isConflict ? (version.isResolved ? "resolved conflict" : "conflict") : "version"
        let date = version.modificationDate.formatted(.iso8601)
        return "\(version.id)  \(date)  \(version.size) bytes  \(kind)  \(version.file)\n"
    }
}
