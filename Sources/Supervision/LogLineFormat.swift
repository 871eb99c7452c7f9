import Logging

/// How one log record becomes one line of standard error: a pure function of the record and the time.
///
/// Every line is one line: control characters in the message and the metadata (a newline in a client's path, an
/// escape sequence) are escaped, so no input can forge a second line or a priority.
public struct LogLineFormat: Sendable, Equatable {
    /// The shapes a line can take.
    public enum Style: Sendable, Equatable {
        /// `TIME LEVEL LABEL: METADATA [SOURCE] MESSAGE`, as swift-log's `StreamLogHandler` writes it.
        case text
        /// For systemd's journal (standard error is its stream): a `<N>` priority prefix (sd-daemon.h's levels)
        /// and no time of its own, since the journal records one.
        case journal
        /// One JSON object: `time`, `level`, `label`, `source`, `message` and `metadata`; under the journal the
        /// priority prefix comes first (journald takes it off).
        case json(journal: Bool)
    }

    /// The shape of the lines.
    public let style: Style

    /// Makes the format of `style`.
    public init(style: Style) {
        self.style = style
    }

    /// Whether lines carry a time (the handler reads the clock only then).
    public var needsTime: Bool {
        switch style {
        case .text, .json(journal: false): true
        case .journal, .json(journal: true): false
        }
    }

    /// The line for one record, with its trailing newline. `time` is an RFC 3339 time, used only when
    /// ``needsTime``.
    public func line(
        level: Logger.Level, label: String, source: String, message: String, metadata: Logger.Metadata,
        time: String?
    ) -> String {
        switch style {
        case .text:
            return "\(time ?? "-") \(level) \(label):\(Self.text(metadata)) [\(source)] \(Self.escaped(message))\n"
        case .journal:
            return "<\(Self.priority(level))>\(level) \(label):\(Self.text(metadata)) [\(source)] \(Self.escaped(message))\n"
        case .json(let journal):
            var object = journal ? "<\(Self.priority(level))>{" : "{"
            if let time, !journal { object += "\"time\":\(Self.json(time)),"}
            object += "\"level\":\(Self.json(level.rawValue)),\"label\":\(Self.json(label)),"
            object += "\"source\":\(Self.json(source)),\"message\":\(Self.json(message))"
            if !metadata.isEmpty { object += ",\"metadata\":\(Self.json(.dictionary(metadata)))" }
            return object + "}\n"
        }
    }

    /// sd-daemon.h's priority of a level: `SD_DEBUG` 7 for trace and debug, `SD_INFO` 6, `SD_NOTICE` 5,
    /// `SD_WARNING` 4, `SD_ERR` 3, `SD_CRIT` 2.
    public static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// ` key=value key2=value2`, sorted by key (as `StreamLogHandler` prints them), or nothing.
    private static func text(_ metadata: Logger.Metadata) -> String {
        guard !metadata.isEmpty else { return "" }
        return " " + metadata.sorted { $0.key < $1.key }.map { "\(escaped($0.key))=\(escaped("\($0.value)"))" }
            .joined(separator: " ")
    }

    /// `text` with control characters escaped (`\n`, `\r`, `\t`, `\u{1B}` …), so that it stays on its line.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where isControl(scalar): result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
    }

    /// A JSON string: quotes, backslashes and every control character escaped (U+2028 and U+2029 too).
    static func json(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where isControl(scalar):
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// A metadata value as JSON: strings as strings, arrays as arrays, dictionaries as objects (keys sorted).
    private static func json(_ value: Logger.MetadataValue) -> String {
        switch value {
        case .string(let text): json(text)
        case .stringConvertible(let convertible): json(convertible.description)
        case .array(let values): "[" + values.map(json).joined(separator: ",") + "]"
        case .dictionary(let entries):
            "{" + entries.sorted { $0.key < $1.key }.map { json($0.key) + ":" + json($0.value) }.joined(separator: ",")
                + "}"
        }
    }
}
