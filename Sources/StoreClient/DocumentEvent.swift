import Foundation

/// One event of the service's change feed (`GET /events`): the `data` of a Server-Sent Event.
public struct DocumentEvent: Sendable, Hashable, Codable {
    /// What happened. A type this client does not know keeps its name.
    public struct EventType: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The type's name on the wire.
        public var rawValue: String
        /// Makes a type from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Decodes the name.
        /// - Throws: `DecodingError` when it is not a string.
        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }
        /// Encodes the name.
        /// - Throws: `EncodingError` from the encoder.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
        /// The name.
        public var description: String { rawValue }

        /// The document entered the store.
        public static let created = EventType(rawValue: "created")
        /// Its content changed.
        public static let changed = EventType(rawValue: "changed")
        /// A file of it moved (`from`, `to`).
        public static let moved = EventType(rawValue: "moved")
        /// It, or a file of it, was deleted.
        public static let deleted = EventType(rawValue: "deleted")
        /// It is in conflict (`conflict`).
        public static let conflict = EventType(rawValue: "conflict")
        /// A conflict was resolved (`resolution`).
        public static let resolved = EventType(rawValue: "resolved")
        /// Its edits were saved.
        public static let saved = EventType(rawValue: "saved")
        /// A file of it stopped being a readable PDF (`file`, `reason`).
        public static let damaged = EventType(rawValue: "damaged")
    }

    /// The event's id: ids only grow, across restarts of the service too.
    public var id: Int64
    /// What happened.
    public var type: EventType
    /// The document it happened to.
    public var document: String
    /// The document's validator after the event (its info's `etag` then), when it has one.
    public var etag: String?
    /// The document's version after the event: every event of one document has a greater one than the last
    /// (nil for events recorded before versions existed).
    public var version: Int64?
    /// The entity tag of the document's content after the event, when it has one.
    public var contentEtag: String?
    /// When it happened, as the service wrote it (RFC 3339, UTC).
    public var at: String
    /// For `moved`: where the file was.
    public var from: String?
    /// For `moved`: where it is now.
    public var to: String?
    /// For `conflict`: its type.
    public var conflict: ConflictType?
    /// For `resolved`: how.
    public var resolution: ConflictResolution?

    private enum CodingKeys: String, CodingKey {
        case id, type, document, etag, version, contentEtag, at, from, to, conflict, resolution
    }

    /// Encodes the event as the service sends it: `etag` is always present (null when none), the type-specific
    /// members only when set.
    /// - Throws: `EncodingError` from the encoder.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(type, forKey: .type)
        try container.encode(document, forKey: .document)
        try container.encode(etag, forKey: .etag)
        try container.encodeIfPresent(version, forKey: .version)
        try container.encodeIfPresent(contentEtag, forKey: .contentEtag)
        try container.encode(at, forKey: .at)
        try container.encodeIfPresent(from, forKey: .from)
        try container.encodeIfPresent(to, forKey: .to)
        try container.encodeIfPresent(conflict, forKey: .conflict)
        try container.encodeIfPresent(resolution, forKey: .resolution)
    }

    /// Makes an event (for tests and tools; the feed decodes them).
    public init(
        id: Int64, type: EventType, document: String, etag: String? = nil, version: Int64? = nil,
        contentEtag: String? = nil, at: String, from: String? = nil, to: String? = nil, conflict: ConflictType? = nil,
        resolution: ConflictResolution? = nil
    ) {
        self.id = id
        self.type = type
        self.document = document
        self.etag = etag
        self.version = version
        self.contentEtag = contentEtag
        self.at = at
        self.from = from
        self.to = to
        self.conflict = conflict
        self.resolution = resolution
    }
}
