#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Encodes the commands' JSON output: sorted keys, ISO 8601 dates, slashes unescaped.
public enum JSONOutput {
    /// One JSON document (or one JSON line) for `value`, without a trailing newline; dates in RFC 3339, in UTC,
    /// with milliseconds when `millisecondDates` is true (as the service writes them).
    /// - Throws: `EncodingError` when `value` cannot be encoded.
    public static func encode(_ value: some Encodable, millisecondDates: Bool = false) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        if millisecondDates {
            encoder.dateEncodingStrategy = .custom { date, encoder in
                var container = encoder.singleValueContainer()
                try container.encode(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
            }
        } else {
            encoder.dateEncodingStrategy = .iso8601
        }
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
