/// What a presenter is told or asked; the client side maps each case to one `FilePresenter` method.
///
/// The first five cases ask for something and wait for an acknowledgement
/// (``Arbiter/presenterReplied(_:from:failure:)``); the others only inform, and any reply to them is ignored.
public enum PresenterMessage: Hashable, Sendable, CustomStringConvertible {
    /// `relinquishPresentedItem(toReader:)`: reply when the presenter calls the reader block.
    case relinquishToReader
    /// `relinquishPresentedItem(toWriter:)`: reply when the presenter calls the writer block.
    case relinquishToWriter
    /// `savePresentedItemChanges(completionHandler:)`: reply with the handler's error, if any.
    case savePresentedItemChanges
    /// `accommodatePresentedItemDeletion(completionHandler:)`: reply with the handler's error, if any.
    case accommodateDeletion
    /// `accommodatePresentedSubitemDeletion(at:completionHandler:)` (sent to enclosing file packages before a
    /// `.forDeleting` or `.forReplacing` write, and to enclosing directories before a `.forDeleting` write).
    case accommodateSubitemDeletion(ItemPath)
    /// `presentedItemDidChange()`.
    case didChange
    /// `presentedItemDidMove(to:)`; the arbiter has already updated the presenter's stored path.
    case didMove(ItemPath)
    /// `presentedSubitemDidChange(at:)` (sent to enclosing directories after a write that changed, replaced or
    /// deleted an item).
    case subitemDidChange(ItemPath)
    /// `presentedSubitemDidAppear(at:)` (sent to enclosing directories after a write that created an item, and
    /// to directories an item was moved into).
    case subitemDidAppear(ItemPath)
    /// `presentedSubitem(at:didMoveTo:)` (sent to directories an item was moved out of or within).
    case subitemDidMove(from: ItemPath, to: ItemPath)
    /// Run the reacquirer that the presenter handed back for the relinquish message `relinquishMessage`.
    ///
    /// The client must run it after the presenter's relinquish handler has called back (it may arrive
    /// before, when the access was cancelled while the relinquish was still being handled). A presenter
    /// that passed no reacquirer ignores it.
    case reacquire(relinquishMessage: MessageID)
    /// `presentedItemDidGain(_:)`, `presentedItemDidLose(_:)` or `presentedItemDidResolveConflict(_:)`: a version of
    /// the presented item changed (see ``Arbiter/itemVersionsChanged(at:_:from:)``).
    case versionsChanged(VersionNotice)
    /// `presentedSubitem(at:didGain:)`, `…didLose:` or `…didResolve:`: a version of the item at the path, inside the
    /// presented directory, changed.
    case subitemVersionsChanged(ItemPath, VersionNotice)

    /// True for the messages the arbiter waits on.
    public var expectsReply: Bool {
        switch self {
        case .relinquishToReader, .relinquishToWriter, .savePresentedItemChanges, .accommodateDeletion,
            .accommodateSubitemDeletion:
            return true
        case .didChange, .didMove, .subitemDidChange, .subitemDidAppear, .subitemDidMove, .reacquire,
            .versionsChanged, .subitemVersionsChanged:
            return false
        }
    }

    /// True for the two relinquish messages.
    public var isRelinquish: Bool {
        switch self {
        case .relinquishToReader, .relinquishToWriter:
            return true
        case .savePresentedItemChanges, .accommodateDeletion, .accommodateSubitemDeletion, .didChange, .didMove,
            .subitemDidChange, .subitemDidAppear, .subitemDidMove, .reacquire, .versionsChanged, .subitemVersionsChanged:
            return false
        }
    }

    /// A short name followed by the path arguments.
    public var description: String {
        switch self {
        case .relinquishToReader: return "relinquishToReader"
        case .relinquishToWriter: return "relinquishToWriter"
        case .savePresentedItemChanges: return "savePresentedItemChanges"
        case .accommodateDeletion: return "accommodateDeletion"
        case .accommodateSubitemDeletion(let path): return "accommodateSubitemDeletion(\(path))"
        case .didChange: return "didChange"
        case .didMove(let path): return "didMove(\(path))"
        case .subitemDidChange(let path): return "subitemDidChange(\(path))"
        case .subitemDidAppear(let path): return "subitemDidAppear(\(path))"
        case .subitemDidMove(let from, let to): return "subitemDidMove(\(from) -> \(to))"
        case .reacquire(let message): return "reacquire(\(message))"
        case .versionsChanged(let notice): return "versionsChanged(\(notice.change))"
        case .subitemVersionsChanged(let path, let notice): return "subitemVersionsChanged(\(path), \(notice.change))"
        }
    }
}

/// One message on its way to one presenter, on behalf of one request.
public struct PresenterDelivery: Hashable, Sendable, CustomStringConvertible {
    /// The client that owns the presenter and must deliver the message.
    public let client: ClientID
    /// The presenter to call.
    public let presenter: PresenterID
    /// The message's id; a reply (for messages that expect one) names it.
    public let id: MessageID
    /// What to tell or ask.
    public let message: PresenterMessage
    /// The request on whose behalf it is sent (the requester, or the mover for move notifications);
    /// ``RequestID/noRequest`` for a version notice, which no request sends.
    public let request: RequestID

    /// Makes a delivery (tests build expected actions with it).
    public init(client: ClientID, presenter: PresenterID, id: MessageID, message: PresenterMessage, request: RequestID)
    {
        self.client = client
        self.presenter = presenter
        self.id = id
        self.message = message
        self.request = request
    }

    /// `message#N presenter#P(client#C) <- message for request#R`.
    public var description: String { "\(id) \(presenter)(\(client)) <- \(message) for \(request)" }
}
