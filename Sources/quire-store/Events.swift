import ArgumentParser
import QuireCommandLine
import StoreClient

#if canImport(Glibc)
    import Glibc
#endif

/// `quire events [--since ID]`: follows the change feed of a running service.
struct Events: AsyncParsableCommand {
    static let configuration = EventsArguments.configuration

    @OptionGroup var arguments: EventsArguments

    func run() async throws {
        try await reportingFailures {
            if let count = arguments.count, count < 1 {
                throw CommandFailure("--count must be at least 1", exitCode: CommandFailure.usage)
            }
            if let since = arguments.since, since < 0 {
                throw CommandFailure("--since must be an event id, 0 or more", exitCode: CommandFailure.usage)
            }
            Self.exitQuietlyOnStopSignals()
            let json = arguments.server.json
            let limit = arguments.count
            try await arguments.server.withClient { client in
                let server = client.server
                let feed = client.events(after: arguments.since).onConnectionChange { change in
                    StandardStreams.printError(Self.line(for: change, server: server))
                }
                var printed = 0
                for try await event in feed {
                    StandardStreams.print((json ? try JSONOutput.encode(event, millisecondDates: true) : Self.line(for: event)) + "\n")
                    printed += 1
                    if let limit, printed >= limit { break }
                }
            }
        }
    }

    /// One line for a person: id, time, type, document, then what the type adds.
    static func line(for event: DocumentEvent) -> String {
        var line = "\(event.id) \(StatusReport.timestamp(event.at)) \(event.type.rawValue) \(event.document)"
        if let from = event.from, let to = event.to { line += " from \(from) to \(to)" }
        if let conflict = event.conflict { line += " \(conflict.rawValue)" }
        if let resolution = event.resolution { line += " by \(resolution.rawValue)" }
        if let etag = event.etag { line += " etag \(etag)" }
        return line
    }

    /// What standard error says when the feed connects, drops, or resumes.
    static func line(for change: DocumentEventFeed.ConnectionChange, server: String) -> String {
        switch change {
        case .connected(let after?): "following events at \(server) (after event \(after))"
        case .connected(nil): "following events at \(server)"
        case .disconnected(let reason): "lost the event stream of \(server) (\(reason)); reconnecting"
        }
    }

    /// SIGINT and SIGTERM end the command with status 0: following the feed until stopped is its purpose. Every
    /// line is written whole with `write(2)`, so nothing is left to flush.
    private static func exitQuietlyOnStopSignals() {
        for number in [SIGINT, SIGTERM] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { _ in _exit(0) }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(number, &action, nil)
        }
    }
}
