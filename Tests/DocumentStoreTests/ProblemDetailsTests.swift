import DocumentStore
import Foundation
import HTTPTypes
import QuireAPI
import StoreCore
import Testing

@Suite("Problem details (RFC 9457)")
struct ProblemDetailsTests {
    static func members(_ problem: ProblemDetails) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: problem.body) as? [String: Any])
    }

    @Test("the body has the standard members and the extensions; title defaults to the reason phrase")
    func body() throws {
        var problem = ProblemDetails(
            status: .preconditionFailed, type: "/problems/precondition-failed", detail: "changed since",
            instance: "/documents/x/content")
        problem.members.etag = #""v2""#
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
        #expect(failed.headers[.eTag] == nil && failed.extensionMembers.isEmpty)
        let tooLarge = ProblemDetails.contentTooLarge(limit: 10)
        #expect(tooLarge.status == .contentTooLarge && tooLarge.extensionMembers["limit"] == "10")
        let internalError = ProblemDetails.internalError(requestID: "r1")
        #expect(internalError.status == .internalServerError && internalError.extensionMembers["requestId"] == "r1")
        #expect(internalError.description.hasPrefix("500 Internal Server Error: "))
    }

    @Test("every extension member a problem carries is one the spec's Problem declares")
    func declaredMembers() throws {
        let problems: [ProblemDetails] = [
            .malformedHeader(.ifMatch, value: "x"), .futureEventID(9, newest: 4), .internalError(requestID: "r1"),
            .contentTooLarge(limit: 10), .uploadBudgetExhausted(budget: 7, retryAfterSeconds: 5),
            .preconditionFailed(current: EntityTag(content: EntityTag(opaqueTag: "e1")!, version: 2), detail: "changed"),
            ProblemDetails(.invalidParameter("rect.x", reason: "not a number")),
        ]
        for problem in problems {
            // Read as a client generated from the spec reads it: a member it does not declare lands in
            // additionalProperties.
            let read = try JSONDecoder().decode(Components.Schemas.Problem.self, from: problem.body)
            #expect(read.additionalProperties.value.isEmpty, "\(problem)")
            #expect(read.status == problem.status.code && read._type == problem.type)
            #expect(!problem.extensionMembers.isEmpty, "\(problem)")
        }
        let read = try problems.map { try JSONDecoder().decode(Components.Schemas.Problem.self, from: $0.body) }
        #expect(read[0].header == "If-Match" && read[1].newest == "4" && read[2].requestId == "r1")
        #expect(read[3].limit == "10" && read[4].budget == "7" && read[6].parameter == "rect.x")
        #expect(read[5].etag == #""e1-2""# && read[5].version == "2")
    }
}
