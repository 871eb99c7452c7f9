import DocumentStore
import Testing

@Suite("Range requests")
struct ByteRangeTests {
    static func select(_ header: String?, length: Int = 1000) -> ByteRange.Selection {
        ByteRange.select(rangeHeader: header, completeLength: length)
    }

    static func partial(_ first: Int, _ last: Int) -> ByteRange.Selection {
        .partial(ByteRange(first: first, last: last))
    }

    @Test("bytes=a-b, bytes=a- and bytes=-n select the right bytes; a last offset past the end is cut")
    func satisfiable() {
        #expect(Self.select("bytes=0-499") == Self.partial(0, 499))
        #expect(Self.select("bytes=500-999") == Self.partial(500, 999))
        #expect(Self.select("bytes=500-5000") == Self.partial(500, 999))
        #expect(Self.select("bytes=0-0") == Self.partial(0, 0))
        #expect(Self.select("bytes=900-") == Self.partial(900, 999))
        #expect(Self.select("bytes=-100") == Self.partial(900, 999))
        #expect(Self.select("bytes=-5000") == Self.partial(0, 999))
        #expect(Self.select(" Bytes=1-2 ") == Self.partial(1, 2))  // the unit is case-insensitive
        #expect(Self.select("bytes=0-99999999999999999999999") == Self.partial(0, 999))
    }

    @Test("a range that selects no byte is unsatisfiable (416)")
    func unsatisfiable() {
        #expect(Self.select("bytes=1000-") == .unsatisfiable)
        #expect(Self.select("bytes=1000-2000") == .unsatisfiable)
        #expect(Self.select("bytes=-0") == .unsatisfiable)
        #expect(Self.select("bytes=0-", length: 0) == .unsatisfiable)
        #expect(Self.select("bytes=-1", length: 0) == .unsatisfiable)
    }

    @Test("no header, another unit, several ranges or invalid syntax: the whole representation (200)")
    func ignored() {
        for header in [
            nil, "items=0-1", "bytes=0-1,5-6", "bytes=5-2", "bytes=a-b", "bytes=-", "bytes=+1-2", "bytes 0-1",
            "bytes=1",
        ] {
            #expect(Self.select(header) == .whole, "\(header ?? "nil")")
        }
    }

    @Test("Content-Range for 206 and 416")
    func contentRange() {
        let range = ByteRange(first: 10, last: 19)
        #expect(range.count == 10)
        #expect(range.offsets == 10..<20)
        #expect(range.contentRange(completeLength: 1000) == "bytes 10-19/1000")
        #expect(ByteRange.unsatisfiedContentRange(completeLength: 1000) == "bytes */1000")
        let problem = ProblemDetails.rangeNotSatisfiable(completeLength: 1000)
        #expect(problem.status == .rangeNotSatisfiable)
        #expect(problem.headers[.contentRange] == "bytes */1000")
    }
}
