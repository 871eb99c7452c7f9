import CoordinationArbiter
import Dispatch
import Foundation

/// Keeps a file's versions with it when a coordinated write replaces it: a save that writes a new file and renames
/// it over the item (as `Data.write(options: .atomic)` and Quire's documents do) leaves a file without the
/// identity its versions are kept by (``ItemIdentity``); the coordinator gives it the identity back.
///
/// Made for every granted write but a `.forDeleting` (the item goes: a file created at its path later is another
/// one) or `.forMoving` one (the rename keeps the attribute): it reads (`getxattr`) each written item's identity
/// when the access begins, and when it ends gives that identity to an item at the same path that has none (a
/// `setxattr` that never replaces one, so an item moved there keeps its own). Items without an identity, and
/// file systems without extended attributes, cost one `getxattr` and nothing more.
struct VersionIdentityCarrier: Sendable {
    /// The written items that had an identity when the access began.
    private let tagged: [(path: String, identity: UUID)]

    /// Reads the identities of the written items of `targets`, granted at `urls`.
    init(targets: [FileCoordinator.Target], urls: [URL]) {
        tagged = zip(targets, urls).compactMap { target, url in
            guard case .writing(let options) = target.intent.access,
                options.isDisjoint(with: [.forDeleting, .forMoving]), url.isFileURL,
                case .identified(.tagged(let identity)) = try? ItemIdentity.lookUp(url.path)
            else { return nil }
            return (url.path, identity)
        }
    }

    /// Whether no written item had an identity (``finish()`` has nothing to do).
    var isEmpty: Bool { tagged.isEmpty }

    /// Gives each item that had an identity and now has none (it was replaced) that identity again.
    func finish() {
        for (path, identity) in tagged { _ = try? ItemIdentity.tag(path, with: identity) }
    }

    /// Whether `targets` write anything whose identity a carrier reads.
    static func isNeeded(for targets: [FileCoordinator.Target]) -> Bool {
        targets.contains { target in
            guard case .writing(let options) = target.intent.access else { return false }
            return options.isDisjoint(with: [.forDeleting, .forMoving])
        }
    }

    /// ``finish()`` on a Dispatch thread, for callers on the cooperative pool.
    func finishOffPool() async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                finish()
                continuation.resume()
            }
        }
    }
}
