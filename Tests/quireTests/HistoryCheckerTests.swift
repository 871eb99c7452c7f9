import Testing

/// The chaos run's checker catches what it is there to catch: a planted lost update and a planted duplicate
/// event, and passes a history that keeps every promise.
@Suite("The history checker")
struct HistoryCheckerTests {
    typealias Write = HistoryChecker.Write
    typealias Event = HistoryChecker.Event

    /// A document made at version 1, edited to 2, its content replaced at 3, saved at 4.
    static let good = HistoryChecker(
        writes: [
            Write(document: "a", operation: "PATCH metadata", precondition: 1, version: 2),
            Write(document: "a", operation: "PUT content", precondition: 2, version: 3, event: "changed"),
            Write(document: "a", operation: "POST save", precondition: 3, version: 4, event: "saved", mayChangeNothing: true),
            Write(document: "a", operation: "POST save", precondition: 4, version: 4, event: "saved", mayChangeNothing: true),
        ],
        events: [
            Event(id: 1, document: "a", type: "created", version: 1, contentEtag: "\"x\""),
            Event(id: 2, document: "a", type: "changed", version: 3, contentEtag: "\"y\""),
            Event(id: 3, document: "a", type: "saved", version: 4, contentEtag: "\"z\""),
            Event(id: 4, document: "a", type: "changed", version: 5, contentEtag: "\"w\""),
        ],
        finalVersions: ["a": 5])

    @Test("a history that keeps every promise passes")
    func cleanHistory() {
        #expect(Self.good.violations() == [])
    }

    @Test("a planted lost update: two writes against one version both acknowledged")
    func lostUpdate() {
        var history = Self.good
        history.writes.insert(Write(document: "a", operation: "PATCH metadata", precondition: 1, version: 3), at: 1)
        history.writes[2].precondition = 3
        history.writes[2].version = 4
        history.writes[3].precondition = 4
        history.writes[3].version = 5
        history.finalVersions["a"] = 6
        let found = history.violations()
        #expect(found.contains { $0.contains("succeeded although") }, "\(found)")
    }

    @Test("a planted duplicate event: one change recorded twice")
    func duplicateEvent() {
        var history = Self.good
        history.events.insert(Event(id: 3, document: "a", type: "changed", version: 4, contentEtag: "\"y\""), at: 2)
        let found = history.violations()
        #expect(found.contains { $0.contains("one change twice") }, "\(found)")
    }

    @Test("an acknowledged write whose event is missing from the log, or whose version the document never reached")
    func lostWrite() {
        var history = Self.good
        history.events.remove(at: 1)
        #expect(history.violations().contains { $0.contains("0 changed events") })
        var behind = Self.good
        behind.finalVersions["a"] = 3
        #expect(!behind.violations().isEmpty)
    }

    @Test("versions that go back in the log")
    func versionsGoBack() {
        var history = Self.good
        history.events[3].version = 2
        #expect(history.violations().contains { $0.contains("after 4") })
    }
}
