#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import QuireCommandLine

/// The `quire-pdf` executable, which runs the commands that need poppler.
enum PDFHelper {
    /// The helper's file name; it must sit in the same directory as `quire`.
    static let name = "quire-pdf"

    /// Replaces this process with `quire-pdf` and the same arguments; returns only by throwing.
    /// - Throws: `CommandFailure` (70) if the helper is missing or cannot be executed.
    static func replaceProcess() throws -> Never {
        let helper = directoryOfExecutable() + "/" + name
        let arguments = [helper] + CommandLine.arguments.dropFirst()
        var pointers = arguments.map { strdup($0) }
        pointers.append(nil)
        execv(helper, pointers)
        let reason = String(cString: strerror(errno))
        throw CommandFailure(
            "cannot run the PDF helper \(helper) (\(reason)); install \(name) next to quire",
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
