import Logging
import QuireSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The level every ``SupervisedLogHandler`` of the process logs at, unless a logger set its own: one value a reload
/// changes for every logger at once.
public final class LogLevelControl: Sendable {
    private let level: Atomic<UInt8>

    /// Makes the control at `level`.
    public init(_ level: Logger.Level) {
        self.level = Atomic(Self.index(level))
    }

    /// The level now.
    public var current: Logger.Level { Logger.Level.allCases[Int(level.load(ordering: .relaxed))] }

    /// Makes `newLevel` the level of every handler that did not set its own.
    public func set(_ newLevel: Logger.Level) {
        level.store(Self.index(newLevel), ordering: .relaxed)
    }

    private static func index(_ level: Logger.Level) -> UInt8 {
        UInt8(Logger.Level.allCases.firstIndex(of: level) ?? 2)
    }
}

/// A swift-log handler that writes each record as one line of standard error in a ``LogLineFormat`` (text, the
/// journal's, or JSON), with one `write(2)` per line, at the level of a shared ``LogLevelControl``.
public struct SupervisedLogHandler: LogHandler {
    private let label: String
    private let format: LogLineFormat
    private let control: LogLevelControl
    /// The level this logger set for itself (`logger.logLevel = …`), which the shared level no longer changes.
    private var ownLevel: Logger.Level?

    /// The handler's metadata, added to every record.
    public var metadata: Logger.Metadata = [:]

    /// Metadata added to every record from the context (task-local values), as swift-log's handlers take it.
    public var metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider

    /// Makes the handler of the logger `label`.
    public init(label: String, format: LogLineFormat, control: LogLevelControl) {
        self.label = label
        self.format = format
        self.control = control
    }

    /// The level: this logger's own, else the shared one.
    public var logLevel: Logger.Level {
        get { ownLevel ?? control.current }
        set { ownLevel = newValue }
    }

    /// A metadata value of the handler.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes the record's line.
    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let explicit = event.metadata { merged.merge(explicit) { $1 } }
        if let error = event.error { merged["error"] = "\(error)" }
        let line = format.line(
            level: event.level, label: label, source: event.source, message: event.message.description,
            metadata: merged, time: format.needsTime ? Self.now() : nil)
        Self.writeToStandardError(line)
    }

    /// Whether standard error is the journal's stream: `JOURNAL_STREAM`'s device and inode are those of fd 2, as
    /// systemd.exec(5) says to check (a child whose standard error was redirected keeps the variable).
    public static func standardErrorIsJournal(_ environment: SupervisorEnvironment) -> Bool {
        guard let stream = environment.journalStream else { return false }
        var status = stat()
        guard fstat(2, &status) == 0 else { return false }
        return UInt64(status.st_dev) == stream.device && UInt64(status.st_ino) == stream.inode
    }

    /// The time now, RFC 3339 in UTC with milliseconds.
    static func now() -> String {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        var seconds = time.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let milliseconds = Int(time.tv_nsec / 1_000_000)
        let fraction = milliseconds < 10 ? "00\(milliseconds)" : milliseconds < 100 ? "0\(milliseconds)" : "\(milliseconds)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):"
            + "\(two(parts.tm_min)):\(two(parts.tm_sec)).\(fraction)Z"
    }

    /// Writes `line` to fd 2, retrying `EINTR` and short writes; a failure drops the rest (there is nowhere to
    /// report it).
    private static func writeToStandardError(_ line: String) {
        let bytes = Array(line.utf8)
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                guard
                    let written = try? SystemCall.retryingOnInterrupt("write", {
                        write(2, buffer.baseAddress! + offset, buffer.count - offset)
                    })
                else { return }
                offset += written
            }
        }
    }
}
