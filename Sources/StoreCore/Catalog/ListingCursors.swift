import Crypto
import Foundation

/// Seals listing positions into the opaque cursors clients pass back (`GET /documents?cursor=`), and opens them.
///
/// A cursor is `<position>.<tag>`, both base64url: the position (a format version, the `createdAt` milliseconds and
/// the id of the last document of a page) and an HMAC-SHA256 (truncated to 128 bits) of it together with the
/// listing's filters, under the store's key. So a cursor altered by a client, cut short, made by another store or
/// used with other filters than the walk started with is refused, never taken for some other position. The key is
/// the store's (`<store>/listing-cursor.key`, 32 random bytes made at the first start, readable by the service's
/// user only): a cluster's nodes share it through the store directory, so a cursor from one node walks on at any.
public struct ListingCursors: Sendable {
    /// The longest cursor accepted (a real one is about 60 characters).
    public static let maximumLength = 256

    /// The key's bytes (`SymmetricKey` is not `Sendable`).
    let key: Data

    /// Cursors sealed with `key`.
    public init(key: SymmetricKey) {
        self.key = key.withUnsafeBytes { Data($0) }
    }

    /// The cursors of the store in `storeDirectory`, with its key read from `listing-cursor.key`, made when missing
    /// (written aside and linked into place, so that nodes starting together agree on one key).
    /// - Throws: `CocoaError` when the key can neither be read nor made, or
    ///   ``StoreError/internalFailure(_:)`` when the file holds something other than a key.
    public static func ofStore(in storeDirectory: URL) throws -> ListingCursors {
        let file = storeDirectory.appendingPathComponent("listing-cursor.key", isDirectory: false)
        if !FileManager.default.fileExists(atPath: file.path) {
            let aside = storeDirectory.appendingPathComponent(".listing-cursor.key.\(UUID().uuidString)")
            let bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
            guard FileManager.default.createFile(atPath: aside.path, contents: bytes, attributes: [.posixPermissions: 0o600])
            else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: aside.path]) }
            defer { try? FileManager.default.removeItem(at: aside) }
            do {
                try FileManager.default.linkItem(at: aside, to: file)
            } catch CocoaError.fileWriteFileExists {
                // Another node made it first: its key is the store's.
            }
        }
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        let data = try handle.read(upToCount: 33) ?? Data()
        guard data.count == 32 else {
            throw StoreError.internalFailure("\(file.path) does not hold a 32-byte key; remove it to make a new one")
        }
        return ListingCursors(key: SymmetricKey(data: data))
    }

    /// The cursor of the page that starts after `position`, for a walk with `listing`'s filters.
    public func seal(_ position: ListingPosition, for listing: DocumentListing) -> String {
        sealed(Data("1|\(position.createdAt)|\(position.id)".utf8), boundTo: Self.context(listing))
    }

    /// The position `cursor` names, checked against `listing`'s filters.
    /// - Throws: ``StoreError/invalidParameter(_:reason:)`` naming `cursor` when it is too long, malformed,
    ///   altered, from another store, or was made for other filters.
    public func open(_ cursor: String, for listing: DocumentListing) throws(StoreError) -> ListingPosition {
        func refuse(_ why: String) -> StoreError {
            .invalidParameter("cursor", reason: "the cursor \(why): start the walk again without one")
        }
        let payload = try opened(
            cursor, boundTo: Self.context(listing), madeFor: "other filters (state, updatedSince)", refuse: refuse)
        let fields = String(decoding: payload, as: UTF8.self).split(separator: "|", omittingEmptySubsequences: false)
        guard fields.count == 3, fields[0] == "1", let createdAt = Int64(fields[1]),
            DocumentID.isValid(String(fields[2]))
        else { throw refuse("is not one this version understands") }
        return ListingPosition(createdAt: createdAt, id: String(fields[2]))
    }

    /// What a walk's cursor is bound to: its filters (sorted states, the `updatedSince` milliseconds).
    private static func context(_ listing: DocumentListing) -> String {
        let states = listing.states.sorted().map(\.rawValue).joined(separator: ",")
        let since = listing.updatedSince.map { String($0.catalogMilliseconds) } ?? ""
        return "|\(states)|\(since)"
    }

    /// `payload` and its MAC under `context` (what the cursor is bound to), as a cursor: `payload.mac` in base64url.
    func sealed(_ payload: Data, boundTo context: String) -> String {
        Self.base64URL(payload) + "." + Self.base64URL(mac(payload, context))
    }

    /// The payload of a cursor made by ``sealed(_:boundTo:)`` for `context`; `refuse` makes the error for each
    /// way it can be wrong (too long, not one of this service's, altered or made for something else).
    /// - Throws: what `refuse` makes.
    func opened(
        _ cursor: String, boundTo context: String, madeFor other: String, refuse: (String) -> StoreError
    ) throws(StoreError) -> Data {
        guard cursor.utf8.count <= Self.maximumLength else { throw refuse("is too long") }
        let parts = cursor.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let payload = Self.data(base64URL: parts[0]), let tag = Self.data(base64URL: parts[1])
        else { throw refuse("is not one this service gave") }
        guard tag.count == 16, Self.constantTimeEqual(tag, mac(payload, context)) else {
            throw refuse("was altered, is from another store, or was made for \(other)")
        }
        return payload
    }

    /// The MAC of a cursor's payload followed by its context, under the store's key.
    private func mac(_ payload: Data, _ context: String) -> Data {
        var message = payload
        message.append(Data(context.utf8))
        return Data(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)).prefix(16))
    }

    static func constantTimeEqual(_ lhs: Data, _ rhs: Data) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return zip(lhs, rhs).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func data(base64URL text: Substring) -> Data? {
        guard !text.isEmpty, text.utf8.allSatisfy({ byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "_")
        })
        else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}

/// The query of `GET /documents`, checked: what a client may ask of a listing.
public enum ListingQuery {
    /// The parameters `GET /documents` takes.
    public static let parameters: Set<String> = ["limit", "cursor", "state", "updatedSince"]

    /// The listing the query items ask for (`limit` 1…1000, default 100; `cursor` one this store gave for the same
    /// filters; `state` repeatable, each one name or several separated by commas; `updatedSince` an RFC 3339
    /// date-time).
    /// - Throws: ``StoreError/invalidParameter(_:reason:)`` naming the first parameter that is unknown, repeated
    ///   (other than `state`), out of range or malformed.
    public static func listing(
        _ items: [(name: String, value: String)], cursors: ListingCursors
    ) throws(StoreError) -> DocumentListing {
        var seen = Set<String>()
        var limit = DocumentListing.defaultLimit
        var cursor: String?
        var states = Set<DocumentState.Name>()
        var updatedSince: Date?
        for (name, value) in items {
            try QueryParameters.admit(name, allowed: parameters, route: "GET /documents", seen: &seen)
            switch name {
            case "limit":
                limit = try QueryParameters.limit(value, maximum: DocumentListing.maximumLimit)
            case "cursor":
                cursor = value
            case "state":
                states.formUnion(try QueryParameters.states(value))
            default:  // updatedSince
                guard let date = parseDate(value) else {
                    throw .invalidParameter(
                        "updatedSince",
                        reason: "updatedSince must be an RFC 3339 date-time such as 2026-11-28T09:30:00Z, not "
                            + "\"\(value.prefix(40))\"")
                }
                updatedSince = date
            }
        }
        var listing = DocumentListing(states: states, updatedSince: updatedSince, limit: limit)
        if let cursor { listing.after = try cursors.open(cursor, for: listing) }
        return listing
    }

    /// An RFC 3339 date-time, with or without fractional seconds.
    static func parseDate(_ text: String) -> Date? {
        guard text.utf8.count <= 40 else { return nil }
        return (try? Date(text, strategy: StoreEvent.timestampFormat))
            ?? (try? Date(text, strategy: Date.ISO8601FormatStyle()))
    }
}
