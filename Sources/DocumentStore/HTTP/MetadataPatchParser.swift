import Foundation
import StoreCore

/// Reads a JSON merge patch (RFC 7396) of a document's metadata.
package enum MetadataPatchParser {
    /// The patch in `data`.
    /// - Throws: ``StoreError/invalidInput(_:)`` when it is not a JSON object;
    ///   ``StoreError/invalidParameter(_:reason:)`` when it names a member twice or an unknown member, or has a value
    ///   that is neither a string nor null, a string with a NUL character (U+0000), or a date that is not RFC 3339.
    package static func parse(_ data: Data) throws -> DocumentLibrary.MetadataPatch {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw StoreError.invalidInput("the body must be a JSON object of metadata members")
        }
        if let duplicate = JSONDuplicateKeys.first(in: data) {
            throw StoreError.invalidParameter(
                duplicate, reason: "member \"\(duplicate.prefix(40))\" appears more than once: send it once")
        }
        var patch = DocumentLibrary.MetadataPatch()
        for (key, value) in object {
            let text: String??
            if value is NSNull {
                text = .some(nil)
            } else if let string = value as? String {
                guard !string.unicodeScalars.contains("\u{0}") else {
                    throw StoreError.invalidParameter(
                        key,
                        reason: "member \"\(key.prefix(40))\" contains a NUL character (U+0000), which would cut it "
                            + "short: remove it")
                }
                text = .some(string)
            } else {
                throw StoreError.invalidParameter(key, reason: "member \"\(key)\" must be a string or null")
            }
            switch key {
            case "title": patch.title = text
            case "author": patch.author = text
            case "subject": patch.subject = text
            case "keywords": patch.keywords = text
            case "creator": patch.creator = text
            case "producer": patch.producer = text
            case "creationDate": patch.creationDate = try date(text, key)
            case "modificationDate": patch.modificationDate = try date(text, key)
            default:
                throw StoreError.invalidParameter(key, reason: "\"\(key.prefix(40))\" is not a metadata member")
            }
        }
        return patch
    }

    private static func date(_ text: String??, _ key: String) throws -> Date?? {
        guard let text else { return nil }
        guard let string = text else { return .some(nil) }
        for style in [
            Date.ISO8601FormatStyle(includingFractionalSeconds: true), Date.ISO8601FormatStyle(),
        ] {
            if let date = try? style.parse(string) { return .some(date) }
        }
        throw StoreError.invalidParameter(
            key, reason: "member \"\(key)\" must be an RFC 3339 date, such as 2026-11-23T10:00:00Z")
    }
}
