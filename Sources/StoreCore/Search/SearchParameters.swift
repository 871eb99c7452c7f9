import Foundation

/// The query of `GET /search`, checked: what a client may ask of the index.
public enum SearchParameters {
    /// The parameters `GET /search` takes.
    public static let parameters: Set<String> = ["q", "limit", "cursor", "state", "document"]

    /// The request the query items ask for (`q` the query, see ``SearchQuery``; `limit` 1…100, default 20;
    /// `cursor` one this store gave for the same query and filters; `state` repeatable, each one name or several
    /// separated by commas; `document` a document id).
    /// - Throws: ``StoreError/invalidParameter(_:reason:)`` naming the first parameter that is missing (`q`),
    ///   unknown, repeated (other than `state`), out of range or malformed.
    public static func request(
        _ items: [(name: String, value: String)], cursors: ListingCursors
    ) throws(StoreError) -> SearchRequest {
        var seen = Set<String>()
        var text: String?
        var limit = SearchRequest.defaultLimit
        var cursor: String?
        var states = Set<DocumentState.Name>()
        var document: DocumentID?
        for (name, value) in items {
            try QueryParameters.admit(name, allowed: parameters, route: "GET /search", seen: &seen)
            switch name {
            case "q":
                text = value
            case "limit":
                limit = try QueryParameters.limit(value, maximum: SearchRequest.maximumLimit)
            case "cursor":
                cursor = value
            case "state":
                states.formUnion(try QueryParameters.states(value))
            default:  // document
                guard let id = DocumentID(rawValue: value) else {
                    throw .invalidParameter("document", reason: "\"\(value.prefix(40))\" is not a document id")
                }
                document = id
            }
        }
        guard let text else { throw .invalidParameter("q", reason: "q, the text to look for, is required") }
        let query: SearchQuery
        do {
            query = try SearchQuery(parsing: text)
        } catch {
            throw .invalidParameter("q", reason: error.description)
        }
        var request = SearchRequest(query: query, states: states, document: document, limit: limit)
        if let cursor { request.after = try cursors.open(search: cursor, for: request) }
        return request
    }
}

extension ListingCursors {
    /// The cursor of the page of hits that starts after `position`, for `request`'s query and filters.
    public func seal(search position: SearchPosition, for request: SearchRequest) -> String {
        sealed(
            Data("s1|\(position.score.bitPattern)|\(position.page)|\(position.documentID)".utf8),
            boundTo: Self.context(request))
    }

    /// The position a search `cursor` names, checked against `request`'s query and filters.
    /// - Throws: ``StoreError/invalidParameter(_:reason:)`` naming `cursor` when it is too long, malformed,
    ///   altered, from another store, or was made for another query or other filters.
    public func open(search cursor: String, for request: SearchRequest) throws(StoreError) -> SearchPosition {
        func refuse(_ why: String) -> StoreError {
            .invalidParameter("cursor", reason: "the cursor \(why): search again without one")
        }
        let payload = try opened(
            cursor, boundTo: Self.context(request), madeFor: "another query or filters", refuse: refuse)
        let fields = String(decoding: payload, as: UTF8.self).split(
            separator: "|", maxSplits: 3, omittingEmptySubsequences: false)
        guard fields.count == 4, fields[0] == "s1", let bits = UInt64(fields[1]), let page = Int(fields[2]),
            DocumentID.isValid(String(fields[3]))
        else { throw refuse("is not one this version understands") }
        return SearchPosition(score: Double(bitPattern: bits), documentID: String(fields[3]), page: page)
    }

    /// What a search's cursor is bound to: its query and filters.
    private static func context(_ request: SearchRequest) -> String {
        let states = request.states.sorted().map(\.rawValue).joined(separator: ",")
        return "|search|\(request.query.canonicalText)|\(states)|\(request.document?.rawValue ?? "")"
    }
}
