import QuireSystem

/// The listening sockets a supervisor (systemd's socket units, `sd_listen_fds(3)`) handed this process: as many
/// descriptors as `LISTEN_FDS` says, from descriptor 3 on, for the process `LISTEN_PID` names, with the names in
/// `LISTEN_FDNAMES` when it is set. Read and checked without touching the descriptors.
public struct SocketActivation: Sendable, Equatable {
    /// The first handed descriptor (`SD_LISTEN_FDS_START`).
    public static let firstDescriptor: Int32 = 3
    /// The variables of the protocol (a child process must not be given them: see ``fromEnvironment(processID:)``).
    public static let variables = ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"]
    /// The most descriptors accepted, far above what a service is given (a bound on a hostile value).
    public static let maximumCount = 1024

    /// The handed descriptors, in order.
    public let descriptors: [Int32]
    /// Their names (`LISTEN_FDNAMES`, one per descriptor), or empty when the supervisor named none.
    public let names: [String]

    /// Reads `environment` as the process `processID` sees it; nil when `LISTEN_FDS` is unset (nothing was
    /// handed over).
    /// - Throws: ``SupervisorEnvironment/Invalid`` when `LISTEN_PID` is unset, not a pid, or names another
    ///   process; when `LISTEN_FDS` is not a count from 1 to ``maximumCount``; or when `LISTEN_FDNAMES` does not
    ///   name as many sockets as `LISTEN_FDS` counts.
    public init?(_ environment: [String: String], processID: Int32) throws(SupervisorEnvironment.Invalid) {
        guard let count = environment["LISTEN_FDS"] else { return nil }
        func invalid(_ variable: String, _ reason: String) -> SupervisorEnvironment.Invalid {
            SupervisorEnvironment.Invalid(variable: variable, value: environment[variable] ?? "", reason: reason)
        }
        guard let pid = environment["LISTEN_PID"] else {
            throw invalid("LISTEN_FDS", "LISTEN_PID is not set, so the sockets may be meant for another process")
        }
        guard let owner = Int32(pid), owner > 0 else { throw invalid("LISTEN_PID", "expected a process id") }
        guard owner == processID else {
            throw invalid(
                "LISTEN_PID", "the sockets are meant for process \(owner), not for this one (\(processID))")
        }
        guard let number = Int(count), number >= 1, number <= Self.maximumCount else {
            throw invalid("LISTEN_FDS", "expected a count of sockets from 1 to \(Self.maximumCount)")
        }
        descriptors = (0..<Int32(number)).map { Self.firstDescriptor + $0 }
        if let listed = environment["LISTEN_FDNAMES"] {
            let split = listed.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard split.count == number else {
                throw invalid("LISTEN_FDNAMES", "it names \(split.count) sockets, but LISTEN_FDS counts \(number)")
            }
            names = split
        } else {
            names = []
        }
    }

    /// The one socket a service that listens on one address takes.
    /// - Throws: ``SupervisorEnvironment/Invalid`` (`LISTEN_FDS`) when more than one was handed over.
    public func single() throws(SupervisorEnvironment.Invalid) -> Int32 {
        guard descriptors.count == 1, let descriptor = descriptors.first else {
            throw SupervisorEnvironment.Invalid(
                variable: "LISTEN_FDS", value: "\(descriptors.count)",
                reason: "this service listens on one socket; give it exactly one (one ListenStream= in its unit)")
        }
        return descriptor
    }

    /// Reads the protocol's variables from this process's environment, once, at the executable's edge. Nothing is
    /// changed in the environment: a process that starts children gives each an environment of its own without
    /// these variables (the PDF workers' is built by the service), so that none takes the sockets for its own.
    /// - Throws: ``SupervisorEnvironment/Invalid``, as ``init(_:processID:)``.
    public static func fromEnvironment(processID: Int32) throws(SupervisorEnvironment.Invalid) -> SocketActivation? {
        var environment: [String: String] = [:]
        for name in variables { environment[name] = ProcessEnvironment.value(name) }
        return try SocketActivation(environment, processID: processID)
    }
}
