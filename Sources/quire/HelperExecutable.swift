#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import QuireCommandLine

/// An executable installed next to `quire` that runs some of its commands, so that `quire` itself links none of
/// their libraries: `quire-pdf` (poppler, cairo, GLib) and `quire-store` (the HTTP service and its client:
/// Hummingbird, NIO, SQLite).
struct HelperExecutable: Sendable {
    /// The helper's file name; it must sit in the same directory as `quire`.
    let name: String
    /// What it is for, in an error message ("the PDF helper").
    let purpose: String
    /// The subcommands it runs.
    let commands: Set<String>

    /// `quire-pdf`: the commands that need poppler.
    static let pdf = HelperExecutable(
        name: "quire-pdf", purpose: "the PDF helper", commands: [InspectArguments.configuration.commandName!])

    /// `quire-store`: the commands that run or talk to the document-store service.
    static let store = HelperExecutable(
        name: "quire-store", purpose: "the store helper",
        commands: Set(
            [
                ServeArguments.configuration, StatusArguments.configuration, ResolveArguments.configuration,
                VersionsArguments.configuration, EventsArguments.configuration, SearchArguments.configuration,
            ]
            .compactMap(\.commandName)))

    /// The helper that runs `command`, or nil when `quire` runs it itself.
    static func running(_ command: String) -> HelperExecutable? {
        [pdf, store].first { $0.commands.contains(command) }
    }

    /// Replaces this process with the helper and the same arguments; returns only by throwing.
    /// - Throws: `CommandFailure` (70) if the helper is missing or cannot be executed.
    func replaceProcess() throws -> Never {
        let helper = Self.directoryOfExecutable() + "/" + name
        let arguments = [helper] + CommandLine.arguments.dropFirst()
        var pointers = arguments.map { strdup($0) }
        pointers.append(nil)
        execv(helper, pointers)
        let reason = String(cString: strerror(errno))
        throw CommandFailure(
            "cannot run \(purpose) \(helper) (\(reason)); install \(name) next to quire",
            exitCode: CommandFailure.software)
    }

    /// The directory of the running executable, from `/proc/self/exe` (symbolic links resolved).
    private static func directoryOfExecutable() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let path: String
        if length > 0 {
            path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        } else {
            path = CommandLine.arguments[0]
        }
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
