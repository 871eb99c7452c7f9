import DocumentStore
import HTTPTypes
import Testing

@Suite("If-Match and If-None-Match")
struct PreconditionTests {
    static let current = EntityTag(opaqueTag: "v2")!

    static func preconditions(ifMatch: String? = nil, ifNoneMatch: String? = nil) throws -> RequestPreconditions {
        var headers = HTTPFields()
        if let ifMatch { headers[.ifMatch] = ifMatch }
        if let ifNoneMatch { headers[.ifNoneMatch] = ifNoneMatch }
        return try RequestPreconditions(headers: headers)
    }

    @Test("header values parse as * or a list of tags; a comma inside quotes belongs to the tag")
    func parsing() {
        #expect(EntityTagCondition(headerValues: ["*"]) == .anyRepresentation)
        #expect(EntityTagCondition(headerValues: [" * "]) == .anyRepresentation)
        #expect(
            EntityTagCondition(headerValues: [#""a", W/"b" ,"c,d""#])
                == .tags([
                    EntityTag(opaqueTag: "a")!, EntityTag(opaqueTag: "b", isWeak: true)!, EntityTag(opaqueTag: "c,d")!,
                ]))
        #expect(
            EntityTagCondition(headerValues: [#""a""#, #""b""#])
                == .tags([.init(opaqueTag: "a")!, .init(opaqueTag: "b")!]))
        #expect(EntityTagCondition(headerValues: [#", "a",,"#]) == .tags([.init(opaqueTag: "a")!]))
        for invalid in ["", ",", "a", #""a" "b""#, #"*, "a""#, #""a"x"#, #"W/ "a""#] {
            #expect(EntityTagCondition(headerValues: [invalid]) == nil, "\(invalid)")
        }
    }

    @Test("If-Match holds only for a strong match, or * on an existing resource")
    func ifMatch() {
        let condition = EntityTagCondition(headerValues: [#""v1", "v2""#])!
        #expect(condition.ifMatchHolds(current: Self.current))
        #expect(!condition.ifMatchHolds(current: EntityTag(opaqueTag: "v3")))
        #expect(!condition.ifMatchHolds(current: nil))
        #expect(!EntityTagCondition(headerValues: [#"W/"v2""#])!.ifMatchHolds(current: Self.current))
        #expect(EntityTagCondition.anyRepresentation.ifMatchHolds(current: Self.current))
        #expect(!EntityTagCondition.anyRepresentation.ifMatchHolds(current: nil))
    }

    @Test("If-None-Match fails on a weak match, or * on an existing resource")
    func ifNoneMatch() {
        #expect(!EntityTagCondition(headerValues: [#"W/"v2""#])!.ifNoneMatchHolds(current: Self.current))
        #expect(!EntityTagCondition(headerValues: [#""v1", "v2""#])!.ifNoneMatchHolds(current: Self.current))
        #expect(EntityTagCondition(headerValues: [#""v1""#])!.ifNoneMatchHolds(current: Self.current))
        #expect(EntityTagCondition(headerValues: [#""v1""#])!.ifNoneMatchHolds(current: nil))
        #expect(!EntityTagCondition.anyRepresentation.ifNoneMatchHolds(current: Self.current))
        #expect(EntityTagCondition.anyRepresentation.ifNoneMatchHolds(current: nil))
    }

    @Test("evaluation follows RFC 9110 §13.2.2: 412 for If-Match, 304 for a GET's If-None-Match, 412 for a PUT's")
    func evaluation() throws {
        #expect(try Self.preconditions().evaluate(current: Self.current, method: .get) == .proceed)
        #expect(try Self.preconditions(ifMatch: #""v2""#).evaluate(current: Self.current, method: .put) == .proceed)
        #expect(
            try Self.preconditions(ifMatch: #""v1""#).evaluate(current: Self.current, method: .put)
                == .preconditionFailed)
        #expect(
            try Self.preconditions(ifNoneMatch: #""v2""#).evaluate(current: Self.current, method: .get) == .notModified)
        #expect(
            try Self.preconditions(ifNoneMatch: #""v2""#).evaluate(current: Self.current, method: .head) == .notModified
        )
        #expect(
            try Self.preconditions(ifNoneMatch: #""v2""#).evaluate(current: Self.current, method: .put)
                == .preconditionFailed)
        #expect(try Self.preconditions(ifNoneMatch: "*").evaluate(current: nil, method: .put) == .proceed)
        #expect(
            try Self.preconditions(ifNoneMatch: "*").evaluate(current: Self.current, method: .put)
                == .preconditionFailed)
        // If-Match is evaluated first.
        #expect(
            try Self.preconditions(ifMatch: #""v1""#, ifNoneMatch: #""v1""#).evaluate(
                current: Self.current, method: .get)
                == .preconditionFailed)
    }

    @Test("a write without If-Match gets 428, with a stale one 412 carrying the current ETag")
    func requireIfMatch() throws {
        let missing = #expect(throws: ProblemDetails.self) {
            try Self.preconditions().requireIfMatch(current: Self.current, method: .put)
        }
        #expect(missing?.status == .preconditionRequired)
        let stale = #expect(throws: ProblemDetails.self) {
            try Self.preconditions(ifMatch: #""v1""#).requireIfMatch(current: Self.current, method: .put)
        }
        #expect(stale?.status == .preconditionFailed)
        #expect(stale?.headers[.eTag] == #""v2""#)
        #expect(stale?.extensionMembers["etag"] == #""v2""#)
        try Self.preconditions(ifMatch: #""v2""#).requireIfMatch(current: Self.current, method: .put)
        try Self.preconditions(ifMatch: "*").requireIfMatch(current: Self.current, method: .delete)
    }

    @Test("a malformed header is a 400 problem naming it")
    func malformed() {
        let problem = #expect(throws: ProblemDetails.self) { try Self.preconditions(ifMatch: "v2") }
        #expect(problem?.status == .badRequest)
        #expect(problem?.extensionMembers["header"] == "If-Match")
        #expect(problem?.detail == #"the If-Match header "v2" does not follow its syntax"#)
    }
}
