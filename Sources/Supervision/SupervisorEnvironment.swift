/// What the supervisor (systemd) told this process through its environment, read and checked without touching it:
/// where to send notifications (`NOTIFY_SOCKET`), whether and how often to ping its watchdog (`WATCHDOG_USEC`,
/// for this process only when `WATCHDOG_PID` names it), and whether standard error is its journal
/// (`JOURNAL_STREAM`).
public struct SupervisorEnvironment: Sendable, Equatable {
    /// Where `NOTIFY_SOCKET` points: a socket file, or a name in the abstract namespace (`@name`).
    public enum NotifyAddress: Sendable, Equatable {
        /// A path in the file system.
        case path(String)
        /// A name in Linux's abstract socket namespace (without the leading `@`, which stands for a NUL byte).
        case abstract(String)

        /// The bytes of `sun_path`, as many as count: a path with its terminating NUL, an abstract name after its
        /// leading NUL (and no terminator: its length is the address's).
        public var socketPathBytes: [UInt8] {
            switch self {
            case .path(let path): Array(path.utf8) + [0]
            case .abstract(let name): [0] + Array(name.utf8)
            }
        }
    }

    /// What is wrong with a variable the supervisor set: the service refuses to start (exit code 78), since a
    /// supervisor that waits for `READY=1` on an address the service cannot use would wait in vain.
    public struct Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        /// The variable.
        public let variable: String
        /// Its value.
        public let value: String
        /// Why it cannot be used.
        public let reason: String

        /// `NAME=value is … : reason`.
        public var description: String { "\(variable)=\(value) cannot be used: \(reason)" }
    }

    /// The most bytes of `sun_path` (Linux's `struct sockaddr_un`).
    public static let socketPathCapacity = 108

    /// Where to send notifications; nil when no supervisor listens.
    public let notifyAddress: NotifyAddress?
    /// How often the supervisor expects a ping (`WATCHDOG_USEC`) when it watches this process; nil otherwise.
    public let watchdogInterval: Duration?
    /// The device and inode of the supervisor's journal stream (`JOURNAL_STREAM=DEVICE:INODE`), nil when unset or
    /// malformed; standard error is the journal only when its own device and inode are these.
    public let journalStream: (device: UInt64, inode: UInt64)?

    /// Reads `environment` as a process whose id is `processID` sees it.
    /// - Throws: ``Invalid`` for a `NOTIFY_SOCKET` that is neither an absolute path nor `@name`, is empty or too
    ///   long for `sun_path`, or is a VSOCK address (not supported); or a `WATCHDOG_USEC` that is not a positive
    ///   number of microseconds while `WATCHDOG_PID` is unset or names this process.
    public init(_ environment: [String: String], processID: Int32) throws(Invalid) {
        notifyAddress = try Self.notifyAddress(environment["NOTIFY_SOCKET"])
        watchdogInterval = try Self.watchdogInterval(
            environment["WATCHDOG_USEC"], pid: environment["WATCHDOG_PID"], processID: processID)
        journalStream = environment["JOURNAL_STREAM"].flatMap(Self.journalStream)
    }

    /// Equal when every variable read is equal.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.notifyAddress == rhs.notifyAddress && lhs.watchdogInterval == rhs.watchdogInterval
            && lhs.journalStream?.device == rhs.journalStream?.device
            && lhs.journalStream?.inode == rhs.journalStream?.inode
    }

    private static func notifyAddress(_ value: String?) throws(Invalid) -> NotifyAddress? {
        guard let value else { return nil }
        func invalid(_ reason: String) -> Invalid { Invalid(variable: "NOTIFY_SOCKET", value: value, reason: reason) }
        let address: NotifyAddress
        if value.hasPrefix("/") {
            address = .path(value)
        } else if value.hasPrefix("@") && value.utf8.count > 1 {
            address = .abstract(String(value.dropFirst()))
        } else if value.hasPrefix("vsock:") {
            throw invalid("VSOCK addresses are not supported; use a Unix socket path or @name")
        } else {
            throw invalid("expected an absolute socket path or @name")
        }
        guard address.socketPathBytes.count <= socketPathCapacity else {
            throw invalid("longer than the \(socketPathCapacity) bytes of a Unix socket address")
        }
        guard !value.utf8.contains(0) else {
            throw invalid("contains a NUL byte")
        }
        return address
    }

    private static func watchdogInterval(_ value: String?, pid: String?, processID: Int32) throws(Invalid)
        -> Duration?
    {
        guard let value else { return nil }
        // Another process's watchdog (a parent's variables passed down): not ours to ping.
        if let pid, Int32(pid) != processID { return nil }
        guard let microseconds = UInt64(value), microseconds > 0, microseconds <= UInt64(Int64.max) else {
            throw Invalid(variable: "WATCHDOG_USEC", value: value, reason: "expected a positive number of microseconds")
        }
        return .microseconds(Int64(microseconds))
    }

    private static func journalStream(_ value: String) -> (device: UInt64, inode: UInt64)? {
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return nil }
        return (device, inode)
    }
}
