import Dispatch
import Documents
import FileCoordination
import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// The bounds every wait in this suite uses, so that a regression fails instead of hanging.
enum Bound {
    /// How long a test waits for something that must happen (generous: the suite shares two cores).
    static let positive: Double = 10
    /// How long a test waits to show that something does not happen: well past the 20 ms debounce of
    /// uncoordinated changes and a content check.
    static let negative: Double = 0.4
}

/// The committed PDFs in `Fixtures/`.
enum Fixture {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    static func data(_ name: String) throws -> Data { try Data(contentsOf: url(name)) }
}

/// A directory of its own for one test (symbolic links resolved), removed by ``remove()``.
struct Folder {
    let root: URL

    init(_ label: String = #function) throws {
        let base = URL(fileURLWithPath: NSTemporaryDirectory()).resolvingSymlinksInPath()
        let name = "quire-doc-" + label.prefix(while: { $0.isLetter || $0.isNumber }) + "-" + UUID().uuidString
        root = base.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    func url(_ name: String) -> URL { root.appendingPathComponent(name) }

    /// Copies a fixture into the folder under `name`.
    @discardableResult
    func copy(_ fixture: String, as name: String? = nil) throws -> URL {
        let target = url(name ?? fixture)
        try Fixture.data(fixture).write(to: target)
        return target
    }

    func remove() { try? FileManager.default.removeItem(at: root) }
}

/// A value shared between threads.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&stored) }
    }
}

/// Collects events from any thread; tests wait for a count within a bound.
final class EventLog<Event>: @unchecked Sendable {
    private let condition = NSCondition()
    private var events: [Event] = []

    func append(_ event: Event) {
        condition.withLock {
            events.append(event)
            condition.broadcast()
        }
    }

    var all: [Event] { condition.withLock { events } }

    /// Waits until at least `count` events came (true) or `seconds` passed (false).
    @discardableResult
    func wait(for count: Int, _ seconds: Double = Bound.positive) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        return condition.withLock {
            while events.count < count {
                if !condition.wait(until: deadline) { return events.count >= count }
            }
            return true
        }
    }

    /// Waits `Bound.negative` and returns whether the count stayed at most `count`.
    func stays(atMost count: Int) -> Bool {
        !wait(for: count + 1, Bound.negative)
    }
}

/// A coordination delegate that records what its provider forwards; deletions are answered after
/// `deletionDelay` (or at once) from another thread.
final class RecordingDelegate: FileCoordinationDelegate, @unchecked Sendable {
    enum Call: Equatable {
        case changed(onMainThread: Bool)
        case deletion
    }

    let calls = EventLog<Call>()
    let deletionAnswered = EventLog<Date>()
    var deletionDelay: Double = 0

    func presentedItemDidChange(for dataProvider: any CoordinatedFileDataProviding) {
        calls.append(.changed(onMainThread: Thread.isMainThread))
    }

    func accommodatePresentedItemDeletion(
        for dataProvider: any CoordinatedFileDataProviding,
        completionHandler: @escaping @Sendable ((any Error)?) -> Void
    ) {
        calls.append(.deletion)
        let delay = deletionDelay
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [deletionAnswered] in
            deletionAnswered.append(Date())
            completionHandler(nil)
        }
    }
}

/// The `documentUnderlyingFileChanged` notifications posted for one document.
final class NotificationRecorder: @unchecked Sendable {
    struct Posted {
        let url: URL?
        let provider: (any CoordinatedFileDataProviding)?
        let isDeletion: Bool?
        let onPostingThread: Bool
    }

    let posted = EventLog<Posted>()
    private var token: (any NSObjectProtocol)?

    init(_ document: Document) {
        let creatingThread = pthread_self()
        token = NotificationCenter.default.addObserver(
            forName: .documentUnderlyingFileChanged, object: document, queue: nil
        ) { [posted] notification in
            let info = notification.userInfo ?? [:]
            posted.append(
                Posted(
                    url: info[Document.UserInfoKey.changedFileURL] as? URL,
                    provider: info[Document.UserInfoKey.dataProvider] as? any CoordinatedFileDataProviding,
                    isDeletion: info[Document.UserInfoKey.deleteFile] as? Bool,
                    onPostingThread: pthread_self() == creatingThread))
        }
    }

    deinit {
        if let token { NotificationCenter.default.removeObserver(token) }
    }
}

/// A coordinator bounded so that a wedged arbiter fails the call instead of hanging the test.
func boundedCoordinator() -> FileCoordinator {
    let coordinator = FileCoordinator()
    coordinator.timeout = .seconds(20)
    return coordinator
}

/// Replaces a file's bytes inside a coordinated write, as another program that coordinates would.
func coordinatedReplace(_ url: URL, with data: Data) throws {
    try boundedCoordinator().coordinate(writingItemAt: url) { url in try data.write(to: url, options: .atomic) }
}

/// Registers presenters and waits until the arbiter has them (so other coordinators see them).
func observe(_ presenters: [any FilePresenter]) throws {
    FilePresenterCoordinator.shared.observe(presenters)
    try CoordinationService.synchronize()
}

/// Runs blocking test code on a thread of its own and awaits it, so that this suite's bounded waits never hold
/// one of the few threads of Swift's cooperative pool, which the async suites of the same test process need.
/// (Expectations recorded on that thread are reported without the test's name.)
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
