/// The presenter messages a request sends before it is granted, and the replies it still waits for.
///
/// A round has two phases, each waiting for every reply before the next starts (Apple's observed order,
/// §2.3 of the API notes):
/// 1. `relinquishing`: `relinquishToReader` or `relinquishToWriter` to every affected presenter;
/// 2. `preparing`: `savePresentedItemChanges`, `accommodateDeletion` or `accommodateSubitemDeletion`, as the
///    options ask (presenters of plain directories enclosing an item deleted with `.forDeleting` get only
///    `accommodateSubitemDeletion`, in this phase).
/// The set of presenters is fixed when the round starts: a presenter registered later is not asked (register
/// inside a coordinated read to avoid that race, as on Apple platforms); one removed meanwhile counts as having
/// replied without error.
struct PresenterRound: Sendable {
    /// The phase whose replies are awaited.
    ///
    /// Legal transitions: `relinquishing` → `preparing` when its last reply is in (also when it had no
    /// messages); `preparing` ends the round.
    enum Phase: Sendable {
        /// Waiting for relinquish replies.
        case relinquishing
        /// Waiting for save / accommodate replies.
        case preparing
    }

    /// One message planned for one presenter.
    struct PlannedMessage: Sendable, Equatable {
        /// The presenter to ask.
        let presenter: PresenterID
        /// What to ask.
        let message: PresenterMessage
        /// The intent's item the message is about.
        let path: ItemPath
    }

    /// The phase in progress.
    var phase: Phase = .relinquishing
    /// Messages of the current phase whose replies are still awaited.
    var awaiting: [MessageID] = []
    /// The second phase's messages, sent when the first phase is over.
    var preparations: [PlannedMessage]
}

/// The messages of a whole round, worked out from a request's intents and the registered presenters.
struct RoundPlan: Sendable {
    /// Phase 1: one relinquish per affected presenter (to writer if any write intent affects it).
    var relinquishments: [PresenterRound.PlannedMessage] = []
    /// Phase 2: save / accommodate messages, each at most once per presenter (and path).
    var preparations: [PresenterRound.PlannedMessage] = []

    /// True when nobody needs to be asked anything.
    var isEmpty: Bool { relinquishments.isEmpty && preparations.isEmpty }

    /// Records that `presenter` is affected by an intent, upgrading a reader relinquish to a writer one.
    mutating func relinquish(_ presenter: PresenterID, toWriter: Bool, path: ItemPath) {
        let message: PresenterMessage = toWriter ? .relinquishToWriter : .relinquishToReader
        if let index = relinquishments.firstIndex(where: { $0.presenter == presenter }) {
            if toWriter && relinquishments[index].message == .relinquishToReader {
                relinquishments[index] = PresenterRound.PlannedMessage(
                    presenter: presenter, message: message, path: relinquishments[index].path)
            }
            return
        }
        relinquishments.append(PresenterRound.PlannedMessage(presenter: presenter, message: message, path: path))
    }

    /// Adds a phase 2 message unless the presenter already gets the same one.
    mutating func prepare(_ presenter: PresenterID, _ message: PresenterMessage, path: ItemPath) {
        guard !preparations.contains(where: { $0.presenter == presenter && $0.message == message }) else { return }
        preparations.append(PresenterRound.PlannedMessage(presenter: presenter, message: message, path: path))
    }

    /// Adds the messages one intent causes.
    ///
    /// - `itemPresenters`: presenters of the item itself;
    /// - `packagePresenters`: presenters of the file packages enclosing the item (they present it as a whole);
    /// - `contentPresenters`: presenters inside the item (only for writes that exclude contents and for
    ///   intents that include contents; the latter are asked what the item's presenters are asked);
    /// - `directoryPresenters`: presenters of the plain directories enclosing the item (only for `.forDeleting`
    ///   writes): asked to accommodate the deletion of a subitem, without a relinquish (the directory itself
    ///   is not written).
    mutating func add(
        _ intent: AccessIntent, itemPresenters: [PresenterID], packagePresenters: [PresenterID],
        contentPresenters: [PresenterID], directoryPresenters: [PresenterID] = []
    ) {
        guard
            !(itemPresenters.isEmpty && packagePresenters.isEmpty && contentPresenters.isEmpty
                && directoryPresenters.isEmpty)
        else { return }
        let path = intent.path
        switch intent.access {
        case .reading(let options):
            for presenter in itemPresenters + packagePresenters + contentPresenters {
                relinquish(presenter, toWriter: false, path: path)
            }
            guard !options.contains(.withoutChanges) else { return }
            for presenter in itemPresenters + packagePresenters + contentPresenters {
                prepare(presenter, .savePresentedItemChanges, path: path)
            }
        case .writing(let options):
            for presenter in itemPresenters + packagePresenters + contentPresenters {
                relinquish(presenter, toWriter: true, path: path)
            }
            if !options.isDisjoint(with: .removingItem) {
                for presenter in itemPresenters + contentPresenters {
                    prepare(presenter, .accommodateDeletion, path: path)
                }
                for presenter in packagePresenters + directoryPresenters {
                    prepare(presenter, .accommodateSubitemDeletion(path), path: path)
                }
            } else if options.contains(.forMerging) {
                let merging = itemPresenters + packagePresenters + (intent.includesContents ? contentPresenters : [])
                for presenter in merging {
                    prepare(presenter, .savePresentedItemChanges, path: path)
                }
            }
        }
    }
}
