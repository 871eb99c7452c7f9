#if canImport(Glibc)
    import Glibc
#endif

/// The `Date` header's value: RFC 9110's IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
enum HTTPDate {
    /// The value for `second` (seconds since the epoch).
    static func text(at second: time_t) -> String {
        var now = second
        var parts = tm()
        gmtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The value for the current second.
    static func now() -> String { text(at: time(nil)) }
}
