import FileCoordination
import Foundation
import Testing

/// Coordination configured as values: several domains in one process, each with its own configuration.
@Suite("Coordination configuration")
struct ConfigurationTests {
    @Test(
        "two domains in one process (either scope): a presenter hears the writes of its own domain only",
        arguments: [CoordinationService.Scope.process, .user])
    func twoDomainsDoNotHearEachOther(scope: CoordinationService.Scope) throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let file = try tree.file("shared.txt", contents: "x")
        // Socket paths are short (sockaddr_un holds 107 bytes): the directories go in a short folder of their own.
        let arbiters = try ArbiterDirectory()
        defer { arbiters.remove() }
        func domain(_ name: String) -> CoordinationDomain {
            let directory = arbiters.parent.appendingPathComponent(name, isDirectory: true)
            return CoordinationDomain(
                configuration: CoordinationConfiguration(scope: scope, directory: directory))
        }
        let first = domain("first")
        let second = domain("second")
        let presenter = RecordingPresenter(url: file)
        first.addFilePresenter(presenter)
        defer { first.removeFilePresenter(presenter) }
        try first.synchronize()
        #expect(first.filePresenters.count == 1)
        #expect(second.filePresenters.isEmpty)

        // A write in the other domain: the presenter hears nothing, and the write is not held up by it.
        let other = FileCoordinator(domain: second)
        other.timeout = Bound.coordinatorTimeout
        try other.coordinate(writingItemAt: file) { url in try Data("y".utf8).write(to: url) }
        // A write in its own domain, then the presenter has heard everything it will.
        let own = FileCoordinator(domain: first)
        own.timeout = Bound.coordinatorTimeout
        try own.coordinate(writingItemAt: file) { url in
            presenter.mark("own write")
            try Data("z".utf8).write(to: url)
        }
        #expect(presenter.waitFor(.reacquire))
        #expect(presenter.events == [.relinquishToWriter, .mark("own write"), .didChange, .reacquire])
        if scope == .user {
            // Each domain has its own shared arbiter: two sockets, two directories.
            for name in ["first", "second"] {
                let socket = arbiters.parent.appendingPathComponent("\(name)/arbiter.sock").path
                #expect(FileManager.default.fileExists(atPath: socket))
            }
        }
    }

    @Test("a configuration from an environment: each variable, and an invalid scope refused with its name")
    func fromEnvironment() throws {
        let configuration = try CoordinationConfiguration.fromEnvironment([
            "QUIRE_COORDINATION_SCOPE": "process", "QUIRE_COORDINATION_DIR": "/tmp/somewhere",
            "QUIRE_WATCH_DEBOUNCE_MS": "35", "QUIRE_COORDINATION_QUIET": "1",
            "QUIRE_COORDINATION_POLL_MICROSECONDS": "0", "QUIRE_COORDINATION_HAND_OVER_POLL_MICROSECONDS": "900",
            "QUIRE_COORDINATION_HOST_POLL_MICROSECONDS": "250000",
        ])
        #expect(configuration.scope == .process)
        // The polling windows: 0 turns one off; each is clamped to 100 ms.
        #expect(configuration.polling == CoordinationPolling(
            waitingClient: .zero, handOver: .microseconds(900), host: .milliseconds(100)))
        #expect(configuration.directory.path == "/tmp/somewhere")
        #expect(configuration.uncoordinatedChangeDebounce == .milliseconds(35))
        let defaults = try CoordinationConfiguration.fromEnvironment(["XDG_RUNTIME_DIR": "/run/user/7"])
        #expect(defaults.scope == .user)
        #expect(defaults.directory.path == "/run/user/7/quire")
        #expect(defaults.uncoordinatedChangeDebounce == .milliseconds(20))
        #expect(defaults.polling == .default)
        #expect(throws: FileCoordinationError.self) {
            try CoordinationConfiguration.fromEnvironment(["QUIRE_COORDINATION_SCOPE": "galaxy"])
        }
        do {
            _ = try CoordinationConfiguration.fromEnvironment(["QUIRE_COORDINATION_SCOPE": "galaxy"])
        } catch {
            #expect("\(error)".contains("QUIRE_COORDINATION_SCOPE"))
        }
    }

    @Test("this process's configuration, read variable by variable, is the one its whole environment describes")
    func fromProcessEnvironment() throws {
        let read = try CoordinationConfiguration.fromEnvironment()
        let copied = try CoordinationConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
        #expect(read.scope == copied.scope)
        #expect(read.directory == copied.directory)
        #expect(read.uncoordinatedChangeDebounce == copied.uncoordinatedChangeDebounce)
        #expect(
            CoordinationConfiguration.defaultDirectory()
                == CoordinationConfiguration.defaultDirectory(ProcessInfo.processInfo.environment))
    }

    @Test("the default domain cannot be configured once it is in use")
    func configuringTooLateIsRefused() throws {
        _ = CoordinationDomain.default
        #expect(throws: FileCoordinationError.self) {
            try CoordinationService.configure(CoordinationConfiguration(scope: .process))
        }
    }
}
