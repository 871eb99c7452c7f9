import StoreCore

extension EntityTag {
    /// Parses one entity tag as it appears in a header (`"abc"` or `W/"abc"`, surrounding whitespace allowed);
    /// nil when the text is not exactly one tag.
    public init?(headerValue: String) {
        var scanner = EntityTagScanner(Substring(headerValue))
        scanner.skipWhitespace()
        guard let tag = scanner.scanEntityTag() else { return nil }
        scanner.skipWhitespace()
        guard scanner.isAtEnd else { return nil }
        self = tag
    }

    /// The tag as sent in `ETag`, `If-Match` and `If-None-Match`: `"abc"` or `W/"abc"` (its written form,
    /// ``description``).
    public var headerValue: String { description }
}

extension EntityTagCondition {
    /// Parses the field values of an `If-Match` or `If-None-Match` header (RFC 9110 §13.1.1, §13.1.2; one value
    /// per header line, which a recipient combines as one list): `*` alone or a list of entity tags; nil for
    /// anything else.
    public init?(headerValues: [String]) {
        let combined = headerValues.joined(separator: ", ")
        if combined.trimmingWhitespace() == "*" {
            self = .anyRepresentation
            return
        }
        var scanner = EntityTagScanner(Substring(combined))
        guard let tags = scanner.scanEntityTagList() else { return nil }
        self = .tags(tags)
    }
}
