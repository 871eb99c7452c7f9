import DocumentStore
import Foundation
import HTTPTypes
import Testing

@Suite("Problem details (RFC 9457)")
struct ProblemDetailsTests {
    static func members(_ problem: ProblemDetails) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: problem.body) as? [String: Any])
    }

    @Test("the body has the standard members and the extensions; title defaults to the reason phrase")
    func body() throws {
        let problem = ProblemDetails(
            status: .preconditionFailed, type: "/problems/precondition-failed", detail: "changed since",
            instance: "/documents/x/content", extensions: ["etag": #""v2""#])
        let members = try Self.members(problem)
        #expect(members["type"] as? String == "/problems/precondition-failed")
        #expect(members["title"] as? String == "Precondition Failed")
        #expect(members["status"] as? Int == 412)
        #expect(members["detail"] as? String == "changed since")
        #expect(members["instance"] as? String == "/documents/x/content")
        #expect(members["etag"] as? String == #""v2""#)
        #expect(String(decoding: problem.body, as: UTF8.self).hasPrefix(#"{"detail":"changed since","etag":"\"v2\"""#))
    }

    @Test("unset members are left out; about:blank is the default type")
    func minimal() throws {
        let members = try Self.members(ProblemDetails(status: .notFound))
        #expect(members.count == 3)
        #expect(members["type"] as? String == "about:blank")
        #expect(members["title"] as? String == "Not Found")
        #expect(members["status"] as? Int == 404)
    }

    @Test("the common problems carry the headers their status needs")
    func commonProblems() {
        let missingToken = ProblemDetails.bearerTokenRequired(invalidToken: false)
        #expect(missingToken.status == .unauthorized)
        #expect(missingToken.headers[.wwwAuthenticate] == #"Bearer realm="quire""#)
        let wrongToken = ProblemDetails.bearerTokenRequired(invalidToken: true)
        #expect(wrongToken.headers[.wwwAuthenticate] == #"Bearer realm="quire", error="invalid_token""#)
        #expect(ProblemDetails.ifMatchRequired("x").status == .preconditionRequired)
        let failed = ProblemDetails.preconditionFailed(current: nil, detail: "gone")
        #expect(failed.headers[.eTag] == nil && failed.extensions.isEmpty)
        let tooLarge = ProblemDetails.contentTooLarge(limit: 10)
        #expect(tooLarge.status == .contentTooLarge && tooLarge.extensions["limit"] == "10")
        let internalError = ProblemDetails.internalError(requestID: "r1")
        #expect(internalError.status == .internalServerError && internalError.extensions["requestId"] == "r1")
        #expect(internalError.description.hasPrefix("500 Internal Server Error: "))
    }
}
