#if DEBUG  // @testable needs a debug build (or -enable-testing)
import Testing

@testable import FileCoordination

/// The byte parser, on hand-built buffers.
@Suite("Parsing inotify buffers")
struct InotifyEventTests {
    @Test func anEventWithoutANameIsSixteenBytes() throws {
        let bytes = inotifyRecord(watch: -1, mask: .queueOverflow)
        #expect(bytes.count == 16)
        #expect(try InotifyEvent.parse(bytes) == [InotifyEvent(watch: -1, mask: .queueOverflow)])
    }

    @Test func aNameStopsAtItsFirstNulAndThePaddingIsSkipped() throws {
        let bytes = inotifyRecord(watch: 3, mask: [.create, .isDirectory], name: "report.pdf")
        #expect(bytes.count == 16 + 16)
        #expect(
            try InotifyEvent.parse(bytes) == [
                InotifyEvent(watch: 3, mask: [.create, .isDirectory], name: "report.pdf")
            ])
        // A name of exactly 16 bytes needs a second block for its NUL.
        let long = inotifyRecord(watch: 3, mask: .modify, name: "sixteen-bytes-xx")
        #expect(long.count == 16 + 32)
        #expect(try InotifyEvent.parse(long).map(\.name) == ["sixteen-bytes-xx"])
    }

    @Test func severalEventsInOneBufferKeepTheirOrderAndCookies() throws {
        let bytes =
            inotifyRecord(watch: 1, mask: .movedFrom, cookie: 77, name: "a")
            + inotifyRecord(watch: 2, mask: .movedTo, cookie: 77, name: "été.pdf")
            + inotifyRecord(watch: 1, mask: .ignored)
            + inotifyRecord(watch: 1, mask: .attributes, name: "c", padTo: 64)
        let events = try InotifyEvent.parse(bytes)
        #expect(
            events == [
                InotifyEvent(watch: 1, mask: .movedFrom, cookie: 77, name: "a"),
                InotifyEvent(watch: 2, mask: .movedTo, cookie: 77, name: "été.pdf"),
                InotifyEvent(watch: 1, mask: .ignored),
                InotifyEvent(watch: 1, mask: .attributes, name: "c"),
            ])
        #expect(events.count == 4)
    }

    @Test func anEmptyBufferHasNoEvents() throws {
        #expect(try InotifyEvent.parse([UInt8]()) == [])
    }

    @Test func aTruncatedHeaderIsRejected() {
        let bytes = inotifyRecord(watch: 1, mask: .modify, name: "a") + [1, 0, 0, 0, 2, 0]
        #expect(throws: InotifyParseError(offset: 32, needed: 16, available: 6)) { try InotifyEvent.parse(bytes) }
    }

    @Test func aNameLongerThanTheBufferIsRejected() {
        let bytes = Array(inotifyRecord(watch: 1, mask: .modify, name: "abcdef").prefix(20))
        #expect(throws: InotifyParseError.self) { try InotifyEvent.parse(bytes) }
        let huge = inotifyRecord(watch: 1, mask: .modify, declaredLength: .max)
        #expect(throws: InotifyParseError.self) { try InotifyEvent.parse(huge) }
    }
}
#endif
