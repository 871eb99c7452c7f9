import CoordinationArbiter

/// The error a presenter in another process replied with, as it crosses the wire: domain, code and message.
///
/// Over a shared host, a ``PresenterFailure``'s ``PresenterFailure/encoded`` bytes are this value's wire
/// encoding (`string domain, i64 code, string message`): ``presenterFailure`` makes them and ``init(_:)`` reads
/// them back, so the arbiter passes the error along without looking at it.
struct RemotePresenterError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The longest domain or message kept, in UTF-8 bytes; longer ones are cut at a character boundary.
    static let maximumTextLength = 64 << 10

    /// The error's domain (for an `NSError`, its `domain`; otherwise the Swift type's name).
    let domain: String
    /// The error's code.
    let code: Int64
    /// A description of the error for the person who reads it.
    let message: String

    /// Makes an error; a domain or message longer than ``maximumTextLength`` bytes is cut.
    init(domain: String, code: Int64, message: String) {
        self.domain = Self.clipped(domain)
        self.code = code
        self.message = Self.clipped(message)
    }

    /// Reads the error back from a failure made by ``presenterFailure``, or returns nil for other bytes (such as
    /// the key of an in-process host's error table).
    init?(_ failure: PresenterFailure) {
        let decoded = failure.encoded.withUnsafeBytes { raw in
            var reader = WireReader(raw, frameType: .presenterReplied)
            let error = try? reader.readRemotePresenterError()
            return reader.remainingCount == 0 ? error : nil
        }
        guard let decoded else { return nil }
        self = decoded
    }

    /// The failure to hand the arbiter: this error's wire encoding.
    var presenterFailure: PresenterFailure {
        var counter = WireSizeCounter(frameType: .presenterReplied)
        // Cannot throw: both strings are clipped far below the frame limit.
        try? counter.write(self)
        let encoded = [UInt8](unsafeUninitializedCapacity: counter.size) { buffer, initializedCount in
            var writer = WireBufferWriter(UnsafeMutableRawBufferPointer(buffer))
            writer.write(self)
            initializedCount = counter.size
        }
        return PresenterFailure(encoded: encoded)
    }

    /// `domain code: message`.
    var description: String { "\(domain) \(code): \(message)" }

    /// `text`, cut to at most ``maximumTextLength`` UTF-8 bytes at a Unicode scalar boundary.
    private static func clipped(_ text: String) -> String {
        guard text.utf8.count > maximumTextLength else { return text }
        var end = text.utf8.index(text.utf8.startIndex, offsetBy: maximumTextLength)
        while end.samePosition(in: text.unicodeScalars) == nil { end = text.utf8.index(before: end) }
        return String(text.unicodeScalars[..<end])
    }
}
