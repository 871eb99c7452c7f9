/// The answer of `GET /health`.
public struct ServiceHealth: Sendable, Hashable, Codable {
    /// `ok` when the service serves.
    public var status: String
    /// The id of the newest event, 0 when there is none.
    public var lastEventId: Int64
}
