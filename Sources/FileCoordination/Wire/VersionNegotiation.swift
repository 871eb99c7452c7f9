import CoordinationArbiter
import QuireSystem

#if canImport(Glibc)
    import Glibc
#endif

/// How a client and a host agree on the protocol version of a connection, and what each version carries.
///
/// The client's `hello` offers a range: its `version` field is the newest version it speaks and the trailing
/// `lowestVersion` the oldest (a build from before negotiation sends no trailing field and speaks `version`
/// only). The host answers `welcome` with the highest version both speak, or, if the ranges do not overlap,
/// `refused` naming both ranges. From then on each side sends only the frames and messages of the agreed version
/// (``carries(_:at:)``): a connection agreed at 2 never sees a version notice. A pure value, no I/O.
struct VersionNegotiation: Equatable, Sendable {
    /// The versions this side speaks.
    let supported: ClosedRange<UInt16>

    /// The versions this build speaks; in a debug build, `QUIRE_TEST_PROTOCOL_VERSIONS` (`2` or `2-3`) narrows
    /// them, so that a test can run a process that speaks only an older version.
    static let current: VersionNegotiation = {
        let all = WireProtocol.oldestVersion...WireProtocol.version
        #if DEBUG
            if let value = ProcessEnvironment.value("QUIRE_TEST_PROTOCOL_VERSIONS") {
                let bounds = value.split(separator: "-").compactMap { UInt16($0) }
                if let low = bounds.first, let high = bounds.last, low <= high, all.contains(low), all.contains(high) {
                    return VersionNegotiation(supported: low...high)
                }
            }
        #endif
        return VersionNegotiation(supported: all)
    }()

    /// What the host answers to a `hello`.
    enum Answer: Equatable, Sendable {
        /// Welcome the client at this version.
        case agreed(UInt16)
        /// Refuse it, for this reason (both ranges named).
        case refused(String)
    }

    /// The versions a client offers in its `hello`.
    struct Offer: Equatable, Sendable {
        /// The newest version, the `hello`'s `version` field.
        let newest: UInt16
        /// The oldest version, the trailing field; nil for the layout of a build from before negotiation, which
        /// speaks `newest` only (such a host drops a `hello` with trailing bytes).
        let lowest: UInt16?

        /// The `hello` that makes this offer.
        func hello(pid: Int32, commandLine: String) -> WireFrame {
            .hello(version: newest, pid: pid, commandLine: commandLine, lowestVersion: lowest)
        }

        /// Whether a `welcome` at `version` answers this offer.
        func accepts(welcome version: UInt16) -> Bool {
            (lowest ?? newest) <= version && version <= newest
        }
    }

    /// The offer of ``supported``; with `legacy`, one version in the layout of a build from before negotiation:
    /// version 3, the only one such builds speak (the newest when this side does not speak 3).
    func offer(legacy: Bool = false) -> Offer {
        guard legacy else { return Offer(newest: supported.upperBound, lowest: supported.lowerBound) }
        let version = WireProtocol.preNegotiationVersion
        return Offer(newest: supported.contains(version) ? version : supported.upperBound, lowest: nil)
    }

    /// The host's answer to a client offering `version` down to `lowestVersion` (nil: `version` only).
    func answer(version: UInt16, lowestVersion: UInt16?) -> Answer {
        let lowest = lowestVersion ?? version
        guard lowest <= version else {
            return .refused("the client offers no protocol version (lowest \(lowest) above newest \(version))")
        }
        let agreed = min(version, supported.upperBound)
        guard agreed >= lowest, agreed >= supported.lowerBound else {
            return .refused(
                "the shared arbiter speaks protocol \(Self.describe(supported)), this process speaks "
                    + "\(Self.describe(lowest...version)); use Quire builds whose versions overlap in every process "
                    + "of this user")
        }
        return .agreed(agreed)
    }

    /// Whether `frame` exists in protocol `version`: frames and messages added later are never sent on a
    /// connection agreed at an older version.
    static func carries(_ frame: WireFrame, at version: UInt16) -> Bool {
        switch frame {
        case .versionsChanged:
            return version >= WireProtocol.versionNoticesVersion
        case .handOverBoard:
            return version >= WireProtocol.handOverVersion
        case .packageExtensions:
            return version >= WireProtocol.packageExtensionsVersion
        case .deliver(let delivery):
            switch delivery.message {
            case .versionsChanged, .subitemVersionsChanged:
                return version >= WireProtocol.versionNoticesVersion
            case .relinquishToReader, .relinquishToWriter, .savePresentedItemChanges, .accommodateDeletion,
                .accommodateSubitemDeletion, .didChange, .didMove, .subitemDidChange, .subitemDidAppear,
                .subitemDidMove, .reacquire:
                return true
            }
        case .hello, .welcome, .refused, .presenterRegistered, .presenterMoved, .presenterRemoved, .accessRequested,
            .accessEnded, .itemMoved, .cancelRequested, .presenterReplied, .snapshotRequest, .redeclared, .grant,
            .fail, .snapshotResponse:
            return true
        }
    }

    /// `versions 2…3`, or `version 3` for a single version.
    static func describe(_ range: ClosedRange<UInt16>) -> String {
        range.lowerBound == range.upperBound
            ? "version \(range.lowerBound)" : "versions \(range.lowerBound)…\(range.upperBound)"
    }
}
