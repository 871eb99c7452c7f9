// A small process for the cross-process tests of FileCoordination: each subcommand does one coordinated thing
// and reports on standard output, one line per event, flushed at once, so a test can follow it.
//
//   present PATH [--observes] [--silent] [--save-text T] [--accommodate-marker M]   until stdin closes
//   present-apple DIR            an NSFilePresenter of a directory, written as the macOS presenter sample: its
//                                presentedSubitemDidAppear(at:) traps (macOS never calls it)      until stdin closes
//   present-async PATH [--refuse]  a presenter with only Apple's async forms (save, deletions); --refuse makes
//                                each throw QuireProbe error 42                                   until stdin closes
//   write PATH [--append T] [--mkdir] [--delete] [--check-marker M] [--timeout S]
//   read PATH [--timeout S]
//   hold --read|--write PATH... [--timeout S]                                        until a line on stdin
//   storm PATH --count N --marker M
//   host
//   pace PATH [--accesses N]     N async writes (default 8) beside a 10 ms timer task: the timer's longest gap
//   descriptors PATH             the descriptors a child finds open: before, while coordinating and watching, after
//                                (a line on stdin once the presenter heard the write, another to end)
import FileCoordination
import FileCoordinationCompat
import Foundation
import QuireSystem

#if canImport(Glibc)
import Glibc
#endif

func say(_ line: String) {
    // One write(2) per line: nothing is buffered when the test kills the process.
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

var arguments = Array(CommandLine.arguments.dropFirst())
@MainActor func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    let value = arguments[index + 1]
    arguments.removeSubrange(index...(index + 1))
    return value
}
@MainActor func flag(_ name: String) -> Bool {
    guard let index = arguments.firstIndex(of: name) else { return false }
    arguments.remove(at: index)
    return true
}

func exitReporting(_ error: any Error) -> Never {
    if case FileCoordinationError.timedOut = error {
        say("timedOut")
        exit(75)
    }
    say("error: \(error)")
    exit(1)
}

final class ProbePresenter: FilePresenter, @unchecked Sendable {
    let presentedItemURL: URL?
    let presentedItemOperationQueue: OperationQueue = {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        return queue
    }()
    let observesUncoordinatedChanges: Bool
    let silent: Bool
    let saveText: String?
    let accommodateMarker: String?

    init(url: URL, observes: Bool, silent: Bool, saveText: String?, accommodateMarker: String?) {
        presentedItemURL = url
        observesUncoordinatedChanges = observes
        self.silent = silent
        self.saveText = saveText
        self.accommodateMarker = accommodateMarker
    }

    func relinquishPresentedItem(toReader reader: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
        say("relinquishToReader")
        if !silent { reader { say("reacquire") } }
    }

    func relinquishPresentedItem(toWriter writer: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
        say("relinquishToWriter")
        if !silent { writer { say("reacquire") } }
    }

    func savePresentedItemChanges(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        say("savePresentedItemChanges")
        guard let saveText, let url = presentedItemURL else { return completionHandler(nil) }
        do {
            try FileCoordinator(filePresenter: self).coordinate(writingItemAt: url) { url in
                let handle = try FileHandle(forWritingTo: url)
                defer { try? handle.close() }
                try handle.seekToEnd()
                try handle.write(contentsOf: Data(saveText.utf8))
            }
            say("saved")
            completionHandler(nil)
        } catch {
            completionHandler(error)
        }
    }

    func accommodatePresentedItemDeletion(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        say("accommodatePresentedItemDeletion")
        if let accommodateMarker { _ = FileManager.default.createFile(atPath: accommodateMarker, contents: Data()) }
        completionHandler(nil)
    }

    func presentedItemDidMove(to newURL: URL) { say("presentedItemDidMove \(newURL.path)") }
    func presentedItemDidChange() { say("presentedItemDidChange") }
}

/// A directory presenter as Apple-platform code writes it: it relies on `presentedSubitemDidChange(at:)` for every
/// creation beneath the directory and implements `presentedSubitemDidAppear(at:)` as unreachable.
final class AppleDirectoryPresenter: NSObject, NSFilePresenter, @unchecked Sendable {
    let presentedItemURL: URL?
    let presentedItemOperationQueue: OperationQueue = {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        return queue
    }()

    init(url: URL) { presentedItemURL = url }

    func relinquishPresentedItem(toWriter writer: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
        writer(nil)
    }
    func presentedSubitemDidChange(at url: URL) { say("presentedSubitemDidChange \(url.path)") }
    func presentedSubitemDidAppear(at url: URL) {
        say("presentedSubitemDidAppear \(url.path)")
        fatalError("macOS never sends presentedSubitemDidAppear(at:)")
    }
}

/// A presenter that implements only Apple's async forms of the completion-handler methods.
final class AsyncFormPresenter: FilePresenter, @unchecked Sendable {
    let presentedItemURL: URL?
    let presentedItemOperationQueue = OperationQueue()
    let refuse: Bool

    init(url: URL, refuse: Bool) {
        presentedItemURL = url
        self.refuse = refuse
    }

    private func answer(_ name: String) throws {
        say(name)
        if refuse {
            throw NSError(domain: "QuireProbe", code: 42, userInfo: [NSLocalizedDescriptionKey: "refused by the probe"])
        }
    }
    func savePresentedItemChanges() async throws { try answer("savePresentedItemChanges async") }
    func accommodatePresentedItemDeletion() async throws { try answer("accommodatePresentedItemDeletion async") }
    func accommodatePresentedSubitemDeletion(at url: URL) async throws {
        try answer("accommodatePresentedSubitemDeletion async \(url.path)")
    }
}

/// Registers `presenter`, says "ready" once the arbiter knows it, and keeps it until standard input closes.
func presentUntilInputCloses(_ presenter: any FilePresenter) -> Never {
    FileCoordinator.addFilePresenter(presenter)
    do { try CoordinationService.synchronize() } catch { exitReporting(error) }
    say("ready")
    while readLine() != nil {}
    FileCoordinator.removeFilePresenter(presenter)
    exit(0)
}

/// The descriptors `/bin/sh -c 'ls /proc/self/fd'` finds open (its own directory's one among them), started with
/// `posix_spawn` and no file action but its standard output, as a child of this process: "3 4 5", sorted.
func descriptorsOfChild() -> String {
    guard let (read, write) = try? SystemCall.makePipe() else { return "error: no pipe" }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, write, 1)
    let command: [String] = ["/bin/sh", "-c", "ls /proc/self/fd"]
    var argv = command.map { strdup($0) }
    argv.append(nil)
    defer { for argument in argv { free(argument) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, argv, environ)
    SystemCall.close(write)
    defer { SystemCall.close(read) }
    guard spawned == 0 else { return "error: posix_spawn \(spawned)" }
    var output: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = chunk.withUnsafeMutableBytes { raw in
            (try? SystemCall.retryingOnInterrupt("read") { Glibc.read(read, raw.baseAddress, raw.count) }) ?? 0
        }
        if count <= 0 { break }
        output += chunk[0..<count]
    }
    var status: Int32 = 0
    _ = try? SystemCall.retryingOnInterrupt("waitpid") { waitpid(pid, &status, 0) }
    guard status == 0 else { return "error: ls exited with \(status)" }
    return String(decoding: output, as: UTF8.self).split(whereSeparator: \.isWhitespace).compactMap { Int32($0) }
        .sorted().map(String.init).joined(separator: " ")
}

let command = arguments.isEmpty ? "" : arguments.removeFirst()
let timeout = option("--timeout").flatMap(Double.init).map { Duration.milliseconds(Int64($0 * 1000)) }

switch command {
case "present":
    // --access-first PATH: a coordinated write of PATH before the presenter exists, so that the thread waiting
    // for that grant is the one that connects (or hosts).
    if let first = option("--access-first") {
        do { try FileCoordinator().coordinate(writingItemAt: URL(fileURLWithPath: first)) { _ in } } catch {
            exitReporting(error)
        }
    }
    let presenter = ProbePresenter(
        url: URL(fileURLWithPath: arguments.removeFirst()), observes: flag("--observes"), silent: flag("--silent"),
        saveText: option("--save-text"), accommodateMarker: option("--accommodate-marker"))
    FileCoordinator.addFilePresenter(presenter)
    do { try CoordinationService.synchronize() } catch { exitReporting(error) }
    say("ready")
    while readLine() != nil {}
    FileCoordinator.removeFilePresenter(presenter)
    exit(0)

case "present-apple":
    presentUntilInputCloses(AppleDirectoryPresenter(url: URL(fileURLWithPath: arguments.removeFirst())))

case "present-async":
    let refuse = flag("--refuse")
    presentUntilInputCloses(AsyncFormPresenter(url: URL(fileURLWithPath: arguments.removeFirst()), refuse: refuse))

case "write":
    let append = option("--append")
    let delete = flag("--delete")
    let makeDirectory = flag("--mkdir")
    let marker = option("--check-marker")
    let url = URL(fileURLWithPath: arguments.removeFirst())
    let coordinator = FileCoordinator()
    coordinator.timeout = timeout
    do {
        try coordinator.coordinate(writingItemAt: url, options: delete ? .forDeleting : []) { url in
            if let marker { say(FileManager.default.fileExists(atPath: marker) ? "marker-present" : "marker-missing") }
            if delete {
                try FileManager.default.removeItem(at: url)
            } else if makeDirectory {
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
            } else if let append {
                if !FileManager.default.fileExists(atPath: url.path) {
                    _ = FileManager.default.createFile(atPath: url.path, contents: Data())
                }
                let handle = try FileHandle(forWritingTo: url)
                defer { try? handle.close() }
                try handle.seekToEnd()
                try handle.write(contentsOf: Data(append.utf8))
            }
        }
        say("done")
    } catch {
        exitReporting(error)
    }

case "read":
    let coordinator = FileCoordinator()
    coordinator.timeout = timeout
    do {
        let text = try coordinator.coordinate(readingItemAt: URL(fileURLWithPath: arguments.removeFirst())) { url in
            try String(contentsOf: url, encoding: .utf8)
        }
        say("content:\(text)")
    } catch {
        exitReporting(error)
    }

case "hold":
    let writes = flag("--write")
    _ = flag("--read")
    let intents = arguments.map { path in
        writes ? FileAccessIntent.writingIntent(with: URL(fileURLWithPath: path))
            : FileAccessIntent.readingIntent(with: URL(fileURLWithPath: path))
    }
    let coordinator = FileCoordinator()
    coordinator.timeout = timeout
    let done = DispatchSemaphore(value: 0)
    let queue = OperationQueue()
    coordinator.coordinate(with: intents, queue: queue) { error in
        if let error { exitReporting(error) }
        say("granted")
        _ = readLine()
        say("released")
        done.signal()
    }
    done.wait()

case "storm":
    let count = Int(option("--count") ?? "100") ?? 100
    let marker = option("--marker") ?? "/nonexistent"
    let url = URL(fileURLWithPath: arguments.removeFirst())
    let coordinator = FileCoordinator()
    say("started")
    for index in 1...count {
        do {
            try coordinator.coordinate(writingItemAt: url) { url in
                let descriptor = open(marker, O_CREAT | O_EXCL | O_WRONLY, 0o600)
                guard descriptor >= 0 else {
                    say("overlap at write \(index)")
                    exit(3)
                }
                close(descriptor)
                let text = (try? String(contentsOf: url, encoding: .utf8)) ?? "0"
                let value = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
                try "\(value + 1)\n".write(to: url, atomically: false, encoding: .utf8)
                unlink(marker)
            }
        } catch {
            exitReporting(error)
        }
        if index % 50 == 0 { say("progress \(index)") }
    }
    let handOvers = CoordinationService.handOvers
    say("done \(count) received \(handOvers.received) passed-on \(handOvers.passedOn)")

case "pace":
    // Async coordinated writes (which wait for a host that may be stopped) beside a timer task that ticks every
    // 10 ms for 1.5 s: prints the timer's longest gap, then how the writes ended.
    let url = URL(fileURLWithPath: arguments[0])
    let accesses = option("--accesses").flatMap { Int($0) } ?? 8
    let finished = DispatchSemaphore(value: 0)
    Task.detached {
        let writes = Task {
            await withTaskGroup(of: String.self) { group in
                for _ in 0..<accesses {
                    group.addTask {
                        let coordinator = FileCoordinator()
                        coordinator.timeout = .seconds(20)
                        do {
                            try await coordinator.coordinate(with: [.writingIntent(with: url)]) { _ in }
                            return "ok"
                        } catch FileCoordinationError.arbiterUnavailable {
                            return "unavailable"
                        } catch {
                            return "other"
                        }
                    }
                }
                var outcomes: [String: Int] = [:]
                for await outcome in group { outcomes[outcome, default: 0] += 1 }
                return outcomes
            }
        }
        let clock = ContinuousClock()
        var last = clock.now
        var longest = Duration.zero
        for _ in 0..<150 {
            try? await Task.sleep(for: .milliseconds(10))
            let now = clock.now
            longest = max(longest, now - last)
            last = now
        }
        let (seconds, attoseconds) = longest.components
        say("longest \(seconds * 1000 + attoseconds / 1_000_000_000_000_000)")
        let outcomes = await writes.value
        say("outcomes ok=\(outcomes["ok"] ?? 0) unavailable=\(outcomes["unavailable"] ?? 0) other=\(outcomes["other"] ?? 0)")
        finished.signal()
    }
    finished.wait()

case "descriptors":
    // In a process of its own, so that no other test's descriptors come and go meanwhile: the descriptors a
    // child started with posix_spawn finds open, before the library does anything, while a presenter watches
    // PATH for uncoordinated changes and a coordinated write runs, and after.
    let url = URL(fileURLWithPath: arguments[0])
    say("baseline \(descriptorsOfChild())")
    let presenter = ProbePresenter(url: url, observes: true, silent: false, saveText: nil, accommodateMarker: nil)
    FileCoordinator.addFilePresenter(presenter)
    // An uncoordinated write reaches the presenter only once the inotify watcher (its instance and wake pipe) runs:
    // the test sends a line when it has seen the presenter hear it.
    do {
        try Data("two".utf8).write(to: url)
        _ = readLine()
        let during = try FileCoordinator().coordinate(writingItemAt: url) { _ in descriptorsOfChild() }
        say("coordinating \(during)")
    } catch {
        exitReporting(error)
    }
    say("after \(descriptorsOfChild())")
    _ = readLine()
    FileCoordinator.removeFilePresenter(presenter)

case "host":
    do {
        try CoordinationService.hostInForeground { socket in say("hosting \(socket.path)") }
    } catch {
        exitReporting(error)
    }

default:
    say("error: unknown command '\(command)'")
    exit(64)
}
exit(0)
