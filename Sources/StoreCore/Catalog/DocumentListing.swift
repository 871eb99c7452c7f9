import Foundation

extension DocumentState {
    /// A state's name without a conflict's type: what listings filter on (`state=` of `GET /documents`).
    public enum Name: String, Sendable, Hashable, CaseIterable, Comparable {
        /// The document matches its files.
        case clean
        /// It has unsaved edits.
        case dirty
        /// Its files changed under its edits, or were deleted.
        case conflict
        /// Its files are gone.
        case deleted
        /// A file does not open.
        case damaged

        /// Names sort by their text, so that a set of them has one order (a cursor's fingerprint).
        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    }
}

/// Where a walk of the catalog stands: the sort key of the last document a page held. Listings are ordered by
/// when each document entered the store (oldest first), ties by id, a key that never changes while the document
/// exists: a walk lists each document at most once, and every document that exists for the whole walk exactly once.
public struct ListingPosition: Sendable, Hashable, Codable {
    /// When the document entered the store, in milliseconds since 1970 (as the catalog keeps it).
    public var createdAt: Int64
    /// The document's id.
    public var id: String

    /// The position of a listed document.
    public init(createdAt: Int64, id: String) {
        self.createdAt = createdAt
        self.id = id
    }

    /// The position of `record`.
    public init(of record: DocumentRecord) {
        self.init(createdAt: record.createdAt.catalogMilliseconds, id: record.id.rawValue)
    }
}

/// What a listing asks the catalog for: one page of the documents after a position, optionally only those in some
/// states or changed since a date.
public struct DocumentListing: Sendable, Hashable {
    /// The most documents a page may hold.
    public static let maximumLimit = 1_000
    /// How many documents a page holds when the client does not say.
    public static let defaultLimit = 100
    /// With `updatedSince`, how many index entries one page may examine at most: a page may then hold fewer than
    /// `limit` documents (none, even) while more follow, so that a filter few documents pass costs each request
    /// the same bounded work however large the store.
    public static let examinedPerPage = 5_000

    /// The states to list; empty: every state.
    public var states: Set<DocumentState.Name>
    /// Only documents whose entry changed at or after this date (to the millisecond); nil: all.
    public var updatedSince: Date?
    /// Start after this position; nil: from the first document.
    public var after: ListingPosition?
    /// The most documents the page holds, 1 to ``maximumLimit``.
    public var limit: Int
    /// With `updatedSince`, how many index entries the page may examine (``examinedPerPage``; tests lower it).
    package var examined = DocumentListing.examinedPerPage

    /// A listing; `limit` is clamped to 1…``maximumLimit`` (the service refuses other values before this).
    public init(
        states: Set<DocumentState.Name> = [], updatedSince: Date? = nil, after: ListingPosition? = nil,
        limit: Int = DocumentListing.defaultLimit
    ) {
        self.states = states
        self.updatedSince = updatedSince.map(\.roundedToCatalogPrecision)
        self.after = after
        self.limit = min(max(limit, 1), Self.maximumLimit)
    }

    /// Whether `record` passes the filters (not the position).
    public func matches(_ record: DocumentRecord) -> Bool {
        if !states.isEmpty, let name = DocumentState.Name(rawValue: record.state.name), !states.contains(name) {
            return false
        }
        if let updatedSince, record.updatedAt < updatedSince { return false }
        return true
    }
}

/// One page of a listing.
public struct DocumentPage: Sendable, Hashable {
    /// The documents, in listing order.
    public var documents: [DocumentRecord]
    /// Where the next page starts; nil when this is the last page.
    public var next: ListingPosition?

    /// A page.
    public init(documents: [DocumentRecord], next: ListingPosition?) {
        self.documents = documents
        self.next = next
    }
}

/// A listed document's key, as the catalog's listing indexes give it without reading the document's row.
public struct ListingKey: Sendable, Hashable, Comparable {
    /// Its position.
    public var position: ListingPosition
    /// When its entry last changed, in milliseconds since 1970.
    public var updatedAt: Int64

    /// A key.
    public init(createdAt: Int64, id: String, updatedAt: Int64) {
        position = ListingPosition(createdAt: createdAt, id: id)
        self.updatedAt = updatedAt
    }

    /// Keys sort by position.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.position < rhs.position }
}

extension ListingPosition: Comparable {
    /// Listing order: by `createdAt`, then by id (byte order, as SQLite's and PostgreSQL's "C" collation).
    public static func < (lhs: Self, rhs: Self) -> Bool {
        if lhs.createdAt != rhs.createdAt { return lhs.createdAt < rhs.createdAt }
        return lhs.id.utf8.lexicographicallyPrecedes(rhs.id.utf8)
    }
}

/// How a page is made from the catalog's two index walks (a pure function of what they returned, the same for
/// every engine): the keys after the position, per state asked for (one walk per state, each bounded, merged
/// here), then the records of the keys that pass the filters.
package enum ListingPlan {
    /// The walks to make: one per state asked for (nil: every state), each at most `limit` keys.
    package static func walks(for listing: DocumentListing) -> (states: [DocumentState.Name?], limit: Int) {
        let states: [DocumentState.Name?] = listing.states.isEmpty ? [nil] : listing.states.sorted().map { $0 }
        // Without a date filter every key passes: one more than the page says whether another page follows.
        return (states, listing.updatedSince == nil ? listing.limit + 1 : max(listing.examined, listing.limit + 1))
    }

    /// The keys whose records the page holds, and where the next page starts, from each walk's keys (in walk
    /// order, each sorted) and the limit each walk had.
    package static func select(
        _ walks: [[ListingKey]], walkLimit: Int, listing: DocumentListing
    ) -> (keys: [ListingKey], next: ListingPosition?) {
        // A walk that came back full stopped at its last key: beyond the earliest such key, another walk's keys
        // may be missing, so the page ends there (the horizon).
        let horizon = walks.filter { $0.count >= walkLimit }.compactMap(\.last).min()
        var merged = walks.joined().filter { horizon == nil || $0 <= horizon! }.sorted()
        if let updatedSince = listing.updatedSince?.catalogMilliseconds {
            merged.removeAll { $0.updatedAt < updatedSince }
        }
        if merged.count > listing.limit {
            let page = Array(merged.prefix(listing.limit))
            return (page, page.last!.position)
        }
        // Everything up to the horizon was examined: the next page starts after it, or there is none.
        return (merged, horizon?.position)
    }

    /// The page: the records fetched for `keys`, in listing order, those that no longer pass the filters (changed
    /// since their key was read) left out.
    package static func page(
        records: [DocumentRecord], keys: [ListingKey], next: ListingPosition?, listing: DocumentListing
    ) -> DocumentPage {
        let byID = Dictionary(records.map { ($0.id.rawValue, $0) }, uniquingKeysWith: { first, _ in first })
        let documents = keys.compactMap { byID[$0.position.id] }.filter(listing.matches)
        return DocumentPage(documents: documents, next: next)
    }
}

extension DocumentCatalog {
    /// One page of documents (see ``DocumentListing``), from the engine's index walks.
    /// - Throws: As the engine's reads: ``CatalogError/corruptRow(table:column:value:)``,
    ///   ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func documents(_ listing: DocumentListing) async throws -> DocumentPage {
        let (states, walkLimit) = ListingPlan.walks(for: listing)
        var walks: [[ListingKey]] = []
        for state in states {
            walks.append(try await listingKeys(state: state, after: listing.after, limit: walkLimit))
        }
        let (keys, next) = ListingPlan.select(walks, walkLimit: walkLimit, listing: listing)
        let records = keys.isEmpty ? [] : try await documents(ids: keys.map(\.position.id))
        return ListingPlan.page(records: records, keys: keys, next: next, listing: listing)
    }
}
