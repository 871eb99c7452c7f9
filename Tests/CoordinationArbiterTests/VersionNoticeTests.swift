import CoordinationArbiter
import Testing

/// Who hears of a version added, removed or resolved (issue 15: `presentedItemDidGain/Lose/ResolveConflict` and the
/// subitem forms), fed to the bare arbiter; the model accepts a notice only without a request.
@Suite struct VersionNoticeTests {
    /// P1 presents the directory `/r`, P2 the item `/r/a` (another client), P3 `/r/a` too (the changer's client).
    func harness() -> Harness {
        var h = Harness()
        h.register(1, client: 2, purpose: "P1", path: "/r")
        h.register(2, client: 2, purpose: "P2", path: "/r/a")
        h.register(3, client: 1, purpose: "P3", path: "/r/a")
        return h
    }

    @Test(arguments: VersionNotice.Change.allCases)
    func itemPresentersThenEnclosingDirectoriesHearEveryChange(change: VersionNotice.Change) {
        var h = harness()
        #expect(
            h.versionsChanged(at: "/r/a", change) == [
                "P2 versionsChanged(\(change))", "P3 versionsChanged(\(change))",
                "P1 subitemVersionsChanged(/r/a, \(change))",
            ])
        #expect(h.model.versionNotices.allSatisfy { $0.request == .noRequest })
    }

    @Test func theNoticeCarriesTheVersionUnchanged() {
        var h = harness()
        h.versionsChanged(at: "/r/a", .gained, version: [1, 2, 3])
        let versions = h.model.versionNotices.map { delivery -> [UInt8]? in
            switch delivery.message {
            case .versionsChanged(let notice), .subitemVersionsChanged(_, let notice): return notice.version
            default: return nil
            }
        }
        #expect(versions == [[1, 2, 3], [1, 2, 3], [1, 2, 3]])
    }

    @Test func nestedDirectoriesHearNearestFirstAndOthersNothing() {
        var h = Harness()
        h.register(1, client: 2, purpose: "P1", path: "/")
        h.register(2, client: 2, purpose: "P2", path: "/r/s")
        h.register(3, client: 2, purpose: "P3", path: "/r/t")
        h.register(4, client: 2, purpose: "P4", path: "/r/s/a/b")
        #expect(
            h.versionsChanged(at: "/r/s/a", .lost) == [
                "P2 subitemVersionsChanged(/r/s/a, lost)", "P1 subitemVersionsChanged(/r/s/a, lost)",
            ])
    }

    @Test func presentersWithoutAnItemAndRemovedOnesHearNothing() {
        var h = harness()
        h.movePresenter(2, client: 2, to: nil)
        h.unregister(3, client: 1)
        h.disconnect(2)
        #expect(h.versionsChanged(at: "/r/a", .resolved) == [])
    }

    @Test func aNoticeNeitherWaitsForNorBlocksAccess() {
        var h = harness()
        #expect(h.request(1, client: 3, purpose: "W", [write("/r/a")]) == ["P2 relinquishToWriter", "P3 relinquishToWriter"])
        #expect(h.versionsChanged(at: "/r/a", .gained).count == 3)
        #expect(h.replyAll() == ["grant R1 /r/a +presence"])
        #expect(h.versionsChanged(at: "/r/a", .resolved).count == 3)
        #expect(h.request(2, client: 3, purpose: "X", [read("/r/b")]) == ["grant R2 /r/b"])
    }
}
