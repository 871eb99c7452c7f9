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
    private enum Reacquirer: @unchecked Sendable {
        case handedBack((@Sendable () -> Void)?)
        case wanted
    }

    private struct State {
        var entries: [ObjectIdentifier: Entry] = [:]
        var order: [ObjectIdentifier] = []
        var byID: [PresenterID: ObjectIdentifier] = [:]
        var purposes: [ObjectIdentifier: Purpose] = [:]
        var reacquirers: [MessageID: Reacquirer] = [:]
        var nextID: UInt64 = 1
    }

    private let state = Mutex(State())

    /// The purpose identifier shared by a presenter and every coordinator made with it.
    func purpose(for presenter: any FilePresenter) -> PurposeID {
        let key = ObjectIdentifier(presenter)
        return state.withLock { state in
            if let known = state.purposes[key], known.presenter === presenter { return known.purpose }
            let purpose = PurposeID(UUID().uuidString)
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
            state.order.append(key)
            state.byID[entry.id] = key
            return entry
        }
    }

    /// Removes a presenter; its id if it was registered.
    func remove(_ presenter: any FilePresenter) -> PresenterID? {
        let key = ObjectIdentifier(presenter)
        return state.withLock { state -> PresenterID? in
            guard let entry = state.entries.removeValue(forKey: key) else { return nil }
            state.order.removeAll { $0 == key }
            state.byID[entry.id] = nil
            return entry.id
        }
    }

    /// The registered presenters, in registration order.
    var presenters: [any FilePresenter] {
        state.withLock { state in state.order.compactMap { state.entries[$0]?.box.presenter } }
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

    /// The relinquish handler called back with `reacquirer`; returns it if the arbiter already asked for it.
    func reacquirerHandedBack(_ message: MessageID, _ reacquirer: (@Sendable () -> Void)?) -> (@Sendable () -> Void)?? {
        state.withLock { state in
            if case .wanted = state.reacquirers[message] {
                state.reacquirers[message] = nil
                return .some(reacquirer)
            }
            state.reacquirers[message] = .handedBack(reacquirer)
            return .none
        }
    }

    /// The arbiter asks for the reacquirer of `message`; returns it if the handler already called back.
    func reacquirerWanted(_ message: MessageID) -> (@Sendable () -> Void)?? {
        state.withLock { state in
            if case .handedBack(let reacquirer) = state.reacquirers[message] {
                state.reacquirers[message] = nil
                return .some(reacquirer)
            }
            state.reacquirers[message] = .wanted
            return .none
        }
    }
}
