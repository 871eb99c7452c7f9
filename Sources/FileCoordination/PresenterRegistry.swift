import CoordinationArbiter
import Foundation
import Synchronization

/// A presenter reference that may cross threads: presenters are not `Sendable` (as Apple's), and the library
/// only touches them on their own operation queue (or reads `presentedItemURL`, which must be thread-safe).
struct PresenterBox: @unchecked Sendable {
    let presenter: any FilePresenter
}

/// The process's registered presenters, their ids and purposes, and the reacquirers they handed back.
final class PresenterRegistry: @unchecked Sendable {
    struct Entry {
        let id: PresenterID
        let box: PresenterBox
        let purpose: PurposeID
        var path: ItemPath?
    }

    private struct Purpose: @unchecked Sendable {
        weak var presenter: AnyObject?
        let purpose: PurposeID
    }

    /// A reacquirer slot: the relinquish handler's callback and the arbiter's reacquire may come in any order.
    ///
    /// A slot whose other half never comes (the presenter was removed before its reacquire, or never answered a
    /// relinquish after a cancel or a timeout) lives only as long as its presenter's registration.
    private enum Reacquirer: @unchecked Sendable {
        case handedBack((@Sendable () -> Void)?)
        case wanted
    }

    private struct State {
        var entries: [ObjectIdentifier: Entry] = [:]
        var byID: [PresenterID: ObjectIdentifier] = [:]
        var purposes: [ObjectIdentifier: Purpose] = [:]
        /// Reacquirer slots of registered presenters, by presenter and relinquish message.
        var reacquirers: [PresenterID: [MessageID: Reacquirer]] = [:]
        var nextID: UInt64 = 1
        /// The size of `purposes` at which slots of presenters that are gone are swept.
        var sweepAt = 1_024

        /// Removes one slot, and the presenter's table when it is empty.
        mutating func removeReacquirer(of presenter: PresenterID, _ message: MessageID) {
            reacquirers[presenter]?[message] = nil
            if reacquirers[presenter]?.isEmpty == true { reacquirers[presenter] = nil }
        }
    }

    private let state = Mutex(State())

    /// The purpose identifier shared by a presenter and every coordinator made with it.
    func purpose(for presenter: any FilePresenter) -> PurposeID {
        let key = ObjectIdentifier(presenter)
        return state.withLock { state in
            if let known = state.purposes[key], known.presenter === presenter { return known.purpose }
            let purpose = PurposeID.unique()
            // Presenters that are gone leave their slot: swept when the slots double, so that each call costs
            // O(1) amortized and the map holds about as many slots as there are live presenters.
            if state.purposes.count >= state.sweepAt {
                state.purposes = state.purposes.filter { $0.value.presenter != nil }
                state.sweepAt = max(1_024, 2 * state.purposes.count)
            }
            state.purposes[key] = Purpose(presenter: presenter, purpose: purpose)
            return purpose
        }
    }

    /// Adds a presenter; nil if it was already registered (registration is a set).
    func add(_ presenter: any FilePresenter, path: ItemPath?) -> Entry? {
        let purpose = self.purpose(for: presenter)
        let key = ObjectIdentifier(presenter)
        return state.withLock { state -> Entry? in
            guard state.entries[key] == nil else { return nil }
            let entry = Entry(id: PresenterID(state.nextID), box: PresenterBox(presenter: presenter), purpose: purpose, path: path)
            state.nextID += 1
            state.entries[key] = entry
            state.byID[entry.id] = key
            return entry
        }
    }

    /// Removes a presenter, and its reacquirer slots (the arbiter sends no reacquire to a removed presenter);
    /// its id if it was registered.
    func remove(_ presenter: any FilePresenter) -> PresenterID? {
        let key = ObjectIdentifier(presenter)
        return state.withLock { state -> PresenterID? in
            guard let entry = state.entries.removeValue(forKey: key) else { return nil }
            state.byID[entry.id] = nil
            state.reacquirers[entry.id] = nil
            return entry.id
        }
    }

    /// The registered presenters, in registration order (their ids grow with it: sorted here, when asked, so that
    /// adding and removing a presenter costs the same among 100,000 as among ten).
    var presenters: [any FilePresenter] {
        state.withLock { state in state.entries.values.sorted { $0.id < $1.id }.map(\.box.presenter) }
    }

    /// The entry of a registered presenter, by id.
    func entry(_ id: PresenterID) -> Entry? {
        state.withLock { state in state.byID[id].flatMap { state.entries[$0] } }
    }

    /// The entry of a registered presenter object.
    func entry(of presenter: any FilePresenter) -> Entry? {
        state.withLock { $0.entries[ObjectIdentifier(presenter)] }
    }

    /// Records a presenter's new path; true if it changed.
    func updatePath(_ id: PresenterID, to path: ItemPath?) -> Bool {
        state.withLock { state in
            guard let key = state.byID[id], state.entries[key]?.path != path else { return false }
            state.entries[key]?.path = path
            return true
        }
    }

    /// `presenter`'s relinquish handler for `message` called back with `reacquirer`; returns it if the arbiter
    /// already asked for it. Nothing is kept for a presenter that is no longer registered.
    func reacquirerHandedBack(
        _ presenter: PresenterID, _ message: MessageID, _ reacquirer: (@Sendable () -> Void)?
    ) -> (@Sendable () -> Void)?? {
        state.withLock { state in
            guard state.byID[presenter] != nil else { return .none }
            if case .wanted = state.reacquirers[presenter]?[message] {
                state.removeReacquirer(of: presenter, message)
                return .some(reacquirer)
            }
            state.reacquirers[presenter, default: [:]][message] = .handedBack(reacquirer)
            return .none
        }
    }

    /// The arbiter asks for `presenter`'s reacquirer of `message`; returns it if the handler already called back.
    /// Nothing is kept for a presenter that is no longer registered.
    func reacquirerWanted(_ presenter: PresenterID, _ message: MessageID) -> (@Sendable () -> Void)?? {
        state.withLock { state in
            guard state.byID[presenter] != nil else { return .none }
            if case .handedBack(let reacquirer) = state.reacquirers[presenter]?[message] {
                state.removeReacquirer(of: presenter, message)
                return .some(reacquirer)
            }
            state.reacquirers[presenter, default: [:]][message] = .wanted
            return .none
        }
    }

    /// The number of reacquirer slots kept (tests check that they do not pile up).
    var reacquirerSlotCount: Int {
        state.withLock { state in state.reacquirers.values.reduce(0) { $0 + $1.count } }
    }

    /// How many purpose slots the registry keeps (for tests: slots of presenters that are gone are swept).
    var purposeSlotCount: Int { state.withLock { $0.purposes.count } }
}
