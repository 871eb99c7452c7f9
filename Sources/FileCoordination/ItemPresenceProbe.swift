import CoordinationArbiter
import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What a granted write saw of its items, so that presenters of enclosing directories hear whether an item
/// appeared, changed or went away (``ItemPresence``).
///
/// Made only when the grant asks for it (a presenter of an enclosing directory listens): it looks (`lstat`)
/// at each written item when the access begins and again when it ends, on the thread that runs the accessor,
/// or off Swift's cooperative pool for the async API. Moves are left out: they report themselves.
struct ItemPresenceProbe: Sendable {
    /// The file system path of each intent's item, nil for reads and moves.
    private let paths: [String?]
    /// Whether each item existed when the access began.
    private let before: [Bool]

    /// Looks at the written items of `targets`, granted at `urls`.
    init(targets: [FileCoordinator.Target], urls: [URL]) {
        paths = zip(targets, urls).map { target, url in
            guard case .writing(let options) = target.intent.access, !options.contains(.forMoving) else { return nil }
            return url.path
        }
        before = paths.map { $0.map(Self.exists) ?? false }
    }

    /// Looks again: what each item did during the access (nil for reads and moves).
    func finish() -> [ItemPresence?] {
        zip(paths, before).map { path, before in
            path.map { ItemPresence(existedBefore: before, existsAfter: Self.exists($0)) }
        }
    }

    /// ``init(targets:urls:)`` on a Dispatch thread, for callers on the cooperative pool.
    static func offPool(targets: [FileCoordinator.Target], urls: [URL]) async -> ItemPresenceProbe {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: ItemPresenceProbe(targets: targets, urls: urls)) }
        }
    }

    /// ``finish()`` on a Dispatch thread, for callers on the cooperative pool.
    func finishOffPool() async -> [ItemPresence?] {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: finish()) }
        }
    }

    /// True if something (a dangling symbolic link too) is at `path`.
    private static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }
}
