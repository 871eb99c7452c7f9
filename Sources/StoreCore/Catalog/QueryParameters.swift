/// What the query-string checks of `GET /documents` (``ListingQuery``) and `GET /search` (``SearchParameters``)
/// share: which names a route takes and how often, a page's size and a state filter, each refused with the
/// parameter it names.
enum QueryParameters {
    /// Admits parameter `name` of `route`: one of `allowed`, and, but for `state` (repeatable), not in `seen`.
    /// - Throws: ``StoreError/invalidParameter(_:reason:)`` for an unknown or repeated name.
    static func admit(_ name: String, allowed: Set<String>, route: String, seen: inout Set<String>)
        throws(StoreError)
    {
        guard allowed.contains(name) else {
            throw .invalidParameter(
                String(name.prefix(40)), reason: "\(route) takes \(allowed.sorted().joined(separator: ", ")) only")
        }
        guard name == "state" || seen.insert(name).inserted else {
            throw .invalidParameter(name, reason: "\(name) may be given once")
        }
    }

    /// The page size `value` names: a whole number from 1 to `maximum`.
    /// - Throws: ``StoreError/invalidParameter(_:reason:)`` naming `limit`.
    static func limit(_ value: String, maximum: Int) throws(StoreError) -> Int {
        guard let number = Int(value), (1...maximum).contains(number) else {
            throw .invalidParameter(
                "limit", reason: "limit must be a whole number from 1 to \(maximum), not \"\(value.prefix(40))\"")
        }
        return number
    }

    /// The states a `state` value names: one name, or several separated by commas.
    /// - Throws: ``StoreError/invalidParameter(_:reason:)`` naming `state` for an unknown name.
    static func states(_ value: String) throws(StoreError) -> [DocumentState.Name] {
        var states: [DocumentState.Name] = []
        for part in value.split(separator: ",", omittingEmptySubsequences: false) {
            guard let state = DocumentState.Name(rawValue: String(part)) else {
                throw .invalidParameter(
                    "state",
                    reason: "unknown state \"\(part.prefix(40))\": one of "
                        + DocumentState.Name.allCases.map(\.rawValue).joined(separator: ", "))
            }
            states.append(state)
        }
        return states
    }
}
