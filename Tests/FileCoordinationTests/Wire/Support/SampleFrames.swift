#if DEBUG  // @testable needs a debug build (or -enable-testing)
import CoordinationArbiter
@testable import FileCoordination

/// Representative frames of every type: non-ASCII paths, the root path, empty arrays, extreme values.
enum SampleFrames {
    /// A purpose as Apple makes them (a UUID string).
    static let purpose = PurposeID("8C1A4E0B-2B6E-4C8E-9E0F-6B7B2F1D3A55")
    /// A path with non-ASCII components (Latin, Cyrillic, Japanese, an emoji, combining marks).
    static let unicodePath = ItemPath("/home/jürgen/Документы/レポート 📄/Cafe\u{301}.quire")
    /// A plain document path.
    static let documentPath = ItemPath("/home/user/Documents/work/report.pdf")

    /// Every presenter message, one of each case.
    static let messages: [PresenterMessage] = [
        .relinquishToReader, .relinquishToWriter, .savePresentedItemChanges, .accommodateDeletion,
        .accommodateSubitemDeletion(unicodePath), .didChange, .didMove(.root), .subitemDidChange(documentPath),
        .subitemDidAppear(unicodePath), .subitemDidMove(from: documentPath, to: unicodePath),
        .reacquire(relinquishMessage: MessageID(.max)),
        .versionsChanged(VersionNotice(.gained, version: [0, 1, 255])),
        .subitemVersionsChanged(unicodePath, VersionNotice(.resolved, version: [])),
    ]

    /// A presenter failure as a remote presenter sends it.
    static let presenterFailure = RemotePresenterError(
        domain: "NSCocoaErrorDomain", code: .min, message: "Le fichier « rapport » n’existe pas."
    ).presenterFailure

    /// Intents with every access, extreme option bits, package depths and contents flags.
    static let intents: [AccessIntent] = [
        .reading(documentPath),
        .reading(
            unicodePath, options: [.withoutChanges, .resolvesSymbolicLink, .forUploading], includesContents: true),
        .writing(ItemPath("/r/Book.pages/Data/img.png"), options: [.forMoving, .forDeleting], packageRootDepths: [2]),
        .writing(.root, options: .init(rawValue: .max)),
        AccessIntent(
            path: ItemPath("/a/b.pkg/c.pkg/d"), access: .reading(.init(rawValue: .max)), packageRootDepths: [2, 3]),
    ]

    /// A snapshot with presenters and claims in every phase.
    static let snapshot = WireSnapshot(
        presenters: [
            .init(
                presenter: PresenterID(1), client: ClientID(7), pid: .max, purpose: purpose, path: unicodePath,
                observesUncoordinatedChanges: true),
            .init(
                presenter: PresenterID(.max), client: ClientID(.max), pid: .min, purpose: PurposeID(""), path: nil,
                observesUncoordinatedChanges: false),
        ],
        claims: [
            .init(
                path: documentPath,
                holders: [
                    .init(
                        request: RequestID(1), client: ClientID(7), pid: 4242, purpose: purpose,
                        intent: intents[0], requestedAt: Instant(nanoseconds: .max), phase: .granted, blockedBy: [])
                ],
                waiters: [
                    .init(
                        request: RequestID(2), client: ClientID(8), pid: 1, purpose: PurposeID("other"),
                        intent: intents[2], requestedAt: Instant(nanoseconds: 0), phase: .waiting,
                        blockedBy: [RequestID(1), RequestID(.max)]),
                    .init(
                        request: RequestID(3), client: ClientID(8), pid: 1, purpose: PurposeID("other"),
                        intent: intents[1], requestedAt: Instant(nanoseconds: 12), phase: .askingPresenters([]),
                        blockedBy: []),
                    .init(
                        request: RequestID(4), client: ClientID(8), pid: 1, purpose: PurposeID("other"),
                        intent: intents[4], requestedAt: Instant(nanoseconds: 13),
                        phase: .askingPresenters([MessageID(1), MessageID(.max)]), blockedBy: []),
                ]),
            .init(path: .root, holders: [], waiters: []),
        ])

    /// At least one frame of every type.
    static let frames: [WireFrame] =
        [
            .hello(version: WireProtocol.version, pid: .max, commandLine: "/usr/bin/quire coordinator --verbose"),
            .hello(version: WireProtocol.version, pid: .min, commandLine: ""),
            .welcome(version: WireProtocol.version, clientID: ClientID(.max)),
            .welcome(version: WireProtocol.version, clientID: ClientID(0)),
            .refused(reason: "the host is shutting down; reconnect"),
            .refused(reason: ""),
            .presenterRegistered(
                PresenterID(.max), purpose: purpose, path: unicodePath, observesUncoordinatedChanges: true),
            .presenterRegistered(
                PresenterID(0), purpose: PurposeID(""), path: nil, observesUncoordinatedChanges: false),
            .presenterRegistered(PresenterID(3), purpose: purpose, path: .root, observesUncoordinatedChanges: false),
            .presenterMoved(PresenterID(5), path: unicodePath),
            .presenterMoved(PresenterID(5), path: nil),
            .presenterRemoved(PresenterID(.max)),
            .accessRequested(
                RequestID(.max), purpose: purpose, intents: intents, timeout: .max, nestedIn: RequestID(.max),
                reclaim: true),
            .accessRequested(RequestID(0), purpose: purpose, intents: [], timeout: nil, nestedIn: nil, reclaim: false),
            .accessRequested(
                RequestID(5), purpose: purpose, intents: [], timeout: 7, nestedIn: nil, reclaim: false, age: .max),
            .accessRequested(
                RequestID(9), purpose: purpose, intents: [.writing(documentPath)], timeout: 0, nestedIn: nil,
                reclaim: false),
            .accessEnded(RequestID(.max)),
            .accessEnded(
                RequestID(3),
                presence: [
                    nil, ItemPresence(existedBefore: false, existsAfter: false),
                    ItemPresence(existedBefore: true, existsAfter: true),
                ]),
            .itemMoved(RequestID(1), from: documentPath, to: unicodePath),
            .itemMoved(RequestID(1), from: .root, to: .root),
            .cancelRequested(RequestID(0)),
            .presenterReplied(MessageID(1), failure: presenterFailure),
            .presenterReplied(MessageID(.max), failure: nil),
            .presenterReplied(
                MessageID(2), failure: RemotePresenterError(domain: "", code: .max, message: "").presenterFailure),
            .snapshotRequest(tag: .max),
            .redeclared,
            .versionsChanged(unicodePath, VersionNotice(.lost, version: Array(repeating: 7, count: 300))),
            .versionsChanged(.root, VersionNotice(.gained, version: [])),
            .packageExtensions(["qpkg", "pages", "é"]),
            .packageExtensions([]),
            .grant(RequestID(.max), paths: [documentPath, unicodePath, .root]),
            .grant(RequestID(0), paths: [], reportsPresence: true),
            .fail(RequestID(1), .cancelled),
            .fail(RequestID(2), .timedOut(unicodePath)),
            .fail(RequestID(.max), .presenterFailed(presenterFailure)),
            .snapshotResponse(tag: .max, snapshot),
            .snapshotResponse(tag: 0, WireSnapshot(presenters: [], claims: [])),
            .handOverBoard(name: "arbiter.board.4242", cell: 1023, generation: 4_194_303),
            .handOverBoard(name: "", cell: 0, generation: 0),
        ]
        + messages.enumerated().map { index, message in
            .deliver(
                PresenterDelivery(
                    client: ClientID(UInt64(index)), presenter: PresenterID(.max), id: MessageID(UInt64(index) + 1),
                    message: message, request: RequestID(.max - UInt64(index))))
        }

    /// All sample frames, encoded back to back.
    static var stream: [UInt8] { frames.flatMap(WireTesting.encode) }
}
#endif
