import FileCoordination
import Foundation

/// A presenter that records every message it gets, in order, on its own serial queue.
///
/// The test can interleave its own marks (``mark(_:)``, from inside an accessor) with the messages, hold the
/// relinquish blocks, and make the completion handlers fail. Thread-safe.
final class RecordingPresenter: FilePresenter, @unchecked Sendable {
    /// One message received (paths are standardized file paths), or a mark set by the test.
    enum Event: Equatable, Sendable, CustomStringConvertible {
        case relinquishToReader
        case relinquishToWriter
        case reacquire
        case save
        case accommodateDeletion
        case accommodateSubitemDeletion(String)
        case didMove(String)
        case didChange
        case subitemDidAppear(String)
        case subitemDidMove(String, String)
        case subitemDidChange(String)
        /// A version message: `gained`, `lost` or `resolved`, and the version's identifier.
        case version(String, String)
        /// A subitem version message: the subitem's path, `gained`, `lost` or `resolved`, the version's identifier.
        case subitemVersion(String, String, String)
        case mark(String)

        var description: String {
            switch self {
            case .relinquishToReader: "relinquishToReader"
            case .relinquishToWriter: "relinquishToWriter"
            case .reacquire: "reacquire"
            case .save: "save"
            case .accommodateDeletion: "accommodateDeletion"
            case .accommodateSubitemDeletion(let path): "accommodateSubitemDeletion(\(path))"
            case .didMove(let path): "didMove(\(path))"
            case .didChange: "didChange"
            case .subitemDidAppear(let path): "subitemDidAppear(\(path))"
            case .subitemDidMove(let old, let new): "subitemDidMove(\(old) -> \(new))"
            case .subitemDidChange(let path): "subitemDidChange(\(path))"
            case .version(let change, let id): "version(\(change) \(id))"
            case .subitemVersion(let path, let change, let id): "subitemVersion(\(path) \(change) \(id))"
            case .mark(let label): "mark(\(label))"
            }
        }
    }

    /// What the presenter does when asked to relinquish.
    enum Relinquishing {
        /// Calls the block at once, handing back a reacquirer that records ``Event/reacquire``.
        case immediately
        /// Keeps the block until ``releaseHeldRelinquish()``.
        case hold
    }

    let presentedItemOperationQueue: OperationQueue
    private let condition = NSCondition()
    private var url: URL?
    private var recorded: [Event] = []
    private var offQueue: [Event] = []
    private var relinquishing: Relinquishing = .immediately
    private var held: [@Sendable ((@Sendable () -> Void)?) -> Void] = []
    private var saveFailure: PresenterRefusal?
    private var deletionFailure: PresenterRefusal?
    private var received: [FileVersion] = []

    /// Whether it asks to hear of changes made without coordination.
    let observesUncoordinatedChanges: Bool

    /// A presenter of `url` (nil: an item that does not exist yet), not registered yet.
    init(url: URL?, name: String = "presenter", observesUncoordinatedChanges: Bool = false) {
        self.url = url
        self.observesUncoordinatedChanges = observesUncoordinatedChanges
        let queue = OperationQueue()
        queue.name = name
        queue.maxConcurrentOperationCount = 1
        presentedItemOperationQueue = queue
    }

    /// A registered presenter of `url`.
    static func registered(at url: URL?, name: String = "presenter") -> RecordingPresenter {
        let presenter = RecordingPresenter(url: url, name: name)
        FileCoordinator.addFilePresenter(presenter)
        return presenter
    }

    var presentedItemURL: URL? {
        get { condition.withLock { url } }
        set { condition.withLock { url = newValue } }
    }

    /// The events so far.
    var events: [Event] { condition.withLock { recorded } }

    /// Messages that did not arrive on ``presentedItemOperationQueue`` (should stay empty).
    var eventsOffQueue: [Event] { condition.withLock { offQueue } }

    /// Sets how later relinquish requests are answered.
    func relinquish(_ behaviour: Relinquishing) { condition.withLock { relinquishing = behaviour } }

    /// Makes the next `savePresentedItemChanges` fail with `failure`.
    func failSaving(with failure: PresenterRefusal) { condition.withLock { saveFailure = failure } }

    /// Makes the next `accommodatePresentedItemDeletion` fail with `failure`.
    func failDeletion(with failure: PresenterRefusal) { condition.withLock { deletionFailure = failure } }

    /// Calls the relinquish blocks held so far (with a reacquirer); returns how many there were.
    @discardableResult
    func releaseHeldRelinquish() -> Int {
        let blocks = condition.withLock {
            defer { held = [] }
            return held
        }
        for block in blocks { block(reacquirer) }
        return blocks.count
    }

    /// Records a mark, to place the test's own steps among the messages.
    func mark(_ label: String) { record(.mark(label), checkQueue: false) }

    /// Waits until the events satisfy `predicate`; false if they did not within `seconds`.
    func waitUntil(within seconds: Double = Bound.positive, _ predicate: ([Event]) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(recorded) {
            if !condition.wait(until: deadline) { return predicate(recorded) }
        }
        return true
    }

    /// Waits until `event` has been recorded.
    func waitFor(_ event: Event, within seconds: Double = Bound.positive) -> Bool {
        waitUntil(within: seconds) { $0.contains(event) }
    }

    /// Waits until every operation queued on the presenter's queue so far has run.
    func drainQueue() -> Bool {
        let done = Signal()
        presentedItemOperationQueue.addOperation { done.signal() }
        return done.wait()
    }

    private var reacquirer: @Sendable () -> Void {
        { [weak self] in self?.record(.reacquire) }
    }

    private func record(_ event: Event, checkQueue: Bool = true) {
        let onQueue = OperationQueue.current === presentedItemOperationQueue
        condition.withLock {
            recorded.append(event)
            if checkQueue && !onQueue { offQueue.append(event) }
            condition.broadcast()
        }
    }

    /// Records the request and holds or calls the block, under one lock so that a test that saw the event
    /// also sees the block held.
    private func answerRelinquish(
        _ event: Event, _ block: @escaping @Sendable ((@Sendable () -> Void)?) -> Void
    ) {
        let onQueue = OperationQueue.current === presentedItemOperationQueue
        let behaviour = condition.withLock { () -> Relinquishing in
            recorded.append(event)
            if !onQueue { offQueue.append(event) }
            if case .hold = relinquishing { held.append(block) }
            condition.broadcast()
            return relinquishing
        }
        if case .immediately = behaviour { block(reacquirer) }
    }

    // MARK: - FilePresenter

    func relinquishPresentedItem(toReader reader: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
        answerRelinquish(.relinquishToReader, reader)
    }

    func relinquishPresentedItem(toWriter writer: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
        answerRelinquish(.relinquishToWriter, writer)
    }

    func savePresentedItemChanges(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        record(.save)
        completionHandler(
            condition.withLock { () -> PresenterRefusal? in
                defer { saveFailure = nil }
                return saveFailure
            })
    }

    func accommodatePresentedItemDeletion(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        record(.accommodateDeletion)
        completionHandler(
            condition.withLock { () -> PresenterRefusal? in
                defer { deletionFailure = nil }
                return deletionFailure
            })
    }

    func presentedItemDidMove(to newURL: URL) {
        presentedItemURL = newURL
        record(.didMove(newURL.standardizedFileURL.path))
    }

    func presentedItemDidChange() {
        record(.didChange)
    }

    func accommodatePresentedSubitemDeletion(at url: URL, completionHandler: @escaping @Sendable ((any Error)?) -> Void)
    {
        record(.accommodateSubitemDeletion(url.standardizedFileURL.path))
        completionHandler(nil)
    }

    func presentedSubitemDidAppear(at url: URL) {
        record(.subitemDidAppear(url.standardizedFileURL.path))
    }

    func presentedSubitem(at oldURL: URL, didMoveTo newURL: URL) {
        record(.subitemDidMove(oldURL.standardizedFileURL.path, newURL.standardizedFileURL.path))
    }

    func presentedSubitemDidChange(at url: URL) {
        record(.subitemDidChange(url.standardizedFileURL.path))
    }

    /// The versions received with version messages, in order (to check what they carry).
    var versionsReceived: [FileVersion] { condition.withLock { received } }

    private func record(version: FileVersion, _ event: Event) {
        condition.withLock { received.append(version) }
        record(event)
    }

    func presentedItemDidGain(_ version: FileVersion) { record(version: version, .version("gained", version.id)) }

    func presentedItemDidLose(_ version: FileVersion) { record(version: version, .version("lost", version.id)) }

    func presentedItemDidResolveConflict(_ version: FileVersion) {
        record(version: version, .version("resolved", version.id))
    }

    func presentedSubitem(at url: URL, didGain version: FileVersion) {
        record(version: version, .subitemVersion(url.standardizedFileURL.path, "gained", version.id))
    }

    func presentedSubitem(at url: URL, didLose version: FileVersion) {
        record(version: version, .subitemVersion(url.standardizedFileURL.path, "lost", version.id))
    }

    func presentedSubitem(at url: URL, didResolve version: FileVersion) {
        record(version: version, .subitemVersion(url.standardizedFileURL.path, "resolved", version.id))
    }
}
