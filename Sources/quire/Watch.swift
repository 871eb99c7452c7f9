import ArgumentParser
import CoordinatedOperations
import FileCoordination
import Foundation
import QuireCommandLine
import Synchronization

/// `quire watch FILE...`: registers a presenter per file and prints every message it receives.
struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print every presenter message about files, whether the change was coordinated or not.",
        discussion: """
            Registers one presenter per FILE (changes made without coordination are reported too), prints \
            "watching N item(s)" on standard error once they are registered, then one line per message on \
            standard output: time, callback (relinquishToReader, relinquishToWriter, reacquire, \
            savePresentedItemChanges, accommodatePresentedItemDeletion, presentedItemDidMove, \
            presentedItemDidChange, and the presentedSubitem… ones) and path. Every message is answered at once. \
            Runs until SIGINT or SIGTERM, or until --count messages.

            Exit codes: 0 success (stopped by a signal or --count); 64 bad usage; 69 the shared coordination \
            arbiter is unavailable.
            """
    )

    @Argument(help: ArgumentHelp("The files or directories to watch.", valueName: "file"))
    var files: [String]

    @Option(help: ArgumentHelp("Exit after this many messages.", valueName: "n"))
    var count: Int?

    @Flag(help: "Print one JSON object per line instead of text.")
    var json = false

    func run() throws {
        try reportingCoordinationFailures {
            if let count, count < 1 {
                throw CommandFailure("--count must be at least 1", exitCode: CommandFailure.usage)
            }
            TerminationSignals.unblock()
            let stop = DispatchSemaphore(value: 0)
            let printer = WatchPrinter(json: json, limit: count) { stop.signal() }
            let signals = [SIGINT, SIGTERM].map { number in
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { stop.signal() }
                source.resume()
                return source
            }
            let presenters = files.map { file in
                WatchingPresenter(url: URL(fileURLWithPath: file)) { printer.print($0) }
            }
            for presenter in presenters { FileCoordinator.addFilePresenter(presenter) }
            try CoordinationService.synchronize()
            StandardStreams.printError("watching \(presenters.count) item(s)")
            stop.wait()
            for presenter in presenters { FileCoordinator.removeFilePresenter(presenter) }
            for source in signals { source.cancel() }
        }
    }
}

/// Prints presenter messages one line each, in the order they arrive, and counts them.
final class WatchPrinter: Sendable {
    private let json: Bool
    private let limit: Int?
    private let printed = Mutex(0)
    private let reachedLimit: @Sendable () -> Void

    init(json: Bool, limit: Int?, reachedLimit: @escaping @Sendable () -> Void) {
        self.json = json
        self.limit = limit
        self.reachedLimit = reachedLimit
    }

    /// Prints one message (nothing once the limit is reached).
    func print(_ event: WatchingPresenter.Event) {
        let line = json ? (try? JSONOutput.encode(Line(event))) ?? "" : Self.text(event)
        let done = printed.withLock { printed -> Bool? in
            if let limit, printed >= limit { return nil }
            StandardStreams.print(line + "\n")
            printed += 1
            return printed == limit
        }
        if done == true { reachedLimit() }
    }

    private static func text(_ event: WatchingPresenter.Event) -> String {
        let time = event.time.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        let path = event.subitem ?? event.path
        return "\(time) \(event.callback) \(path)" + (event.newPath.map { " -> \($0)" } ?? "")
    }

    /// One JSON line: `time`, `callback`, `path` (the presented item), and `subitem` and `newPath` when they apply.
    private struct Line: Encodable {
        let time: String
        let callback: String
        let path: String
        let subitem: String?
        let newPath: String?

        init(_ event: WatchingPresenter.Event) {
            time = event.time.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            callback = event.callback
            path = event.path
            subitem = event.subitem
            newPath = event.newPath
        }
    }
}
