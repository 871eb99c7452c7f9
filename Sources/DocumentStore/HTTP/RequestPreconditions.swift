import HTTPTypes
import StoreCore

/// The entity-tag preconditions of a request (`If-Match`, `If-None-Match`), parsed once and evaluated in the
/// order of RFC 9110 §13.2.2 against the resource's current tag.
public struct RequestPreconditions: Sendable, Hashable {
    /// The parsed `If-Match`, or nil when the request has none.
    public let ifMatch: EntityTagCondition?
    /// The parsed `If-None-Match`, or nil when the request has none.
    public let ifNoneMatch: EntityTagCondition?

    /// What the request should get.
    public enum Outcome: Sendable, Hashable {
        /// Every precondition holds: perform the method.
        case proceed
        /// `If-None-Match` failed on a GET or HEAD: answer 304 with the current `ETag`.
        case notModified
        /// A precondition failed: answer 412 (``ProblemDetails/preconditionFailed(current:detail:)``).
        case preconditionFailed
    }

    /// Reads the two headers from `headers`.
    /// - Throws: ``ProblemDetails/malformedHeader(_:value:)`` (400) when a header is present but malformed.
    public init(headers: HTTPFields) throws(ProblemDetails) {
        ifMatch = try Self.condition(.ifMatch, in: headers)
        ifNoneMatch = try Self.condition(.ifNoneMatch, in: headers)
    }

    /// Makes preconditions from parsed values (for tests and callers that parsed them already).
    public init(ifMatch: EntityTagCondition? = nil, ifNoneMatch: EntityTagCondition? = nil) {
        self.ifMatch = ifMatch
        self.ifNoneMatch = ifNoneMatch
    }

    /// Evaluates the preconditions against the current tag (nil: the resource has no current representation)
    /// for a request with `method`.
    public func evaluate(current: EntityTag?, method: HTTPRequest.Method) -> Outcome {
        if let ifMatch, !ifMatch.ifMatchHolds(current: current) {
            return .preconditionFailed
        }
        if let ifNoneMatch, !ifNoneMatch.ifNoneMatchHolds(current: current) {
            return method == .get || method == .head ? .notModified : .preconditionFailed
        }
        return .proceed
    }

    /// The same conditions as the store sees them: the versions a write may replace.
    public var write: WritePrecondition {
        WritePrecondition(ifMatch: ifMatch, ifNoneMatch: ifNoneMatch)
    }

    /// For writes that must name the version they replace (`PUT` content, `DELETE`, `save`): throws unless the
    /// request has an `If-Match` that holds for `current` (``WritePrecondition/require(current:)``; `method`, a
    /// write's, plays no part).
    /// - Throws: ``ProblemDetails/ifMatchRequired(_:)`` (428) without `If-Match`;
    ///   ``ProblemDetails/preconditionFailed(current:detail:)`` (412) when it, or an `If-None-Match`, fails.
    public func requireIfMatch(current: EntityTag?, method: HTTPRequest.Method) throws(ProblemDetails) {
        do {
            try write.require(current: current)
        } catch {
            throw ProblemDetails(error)
        }
    }

    private static func condition(
        _ name: HTTPField.Name, in headers: HTTPFields
    ) throws(ProblemDetails) -> EntityTagCondition? {
        let values = headers[values: name]
        guard !values.isEmpty else { return nil }
        guard let condition = EntityTagCondition(headerValues: values) else {
            throw .malformedHeader(name, value: values.joined(separator: ", "))
        }
        return condition
    }
}
