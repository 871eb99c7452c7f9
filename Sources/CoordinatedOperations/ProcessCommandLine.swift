import Foundation

/// The command line of a process of this machine, for reports that name processes by pid.
public enum ProcessCommandLine {
    /// `/proc/<pid>/cmdline` with its NUL separators turned into spaces, or "?" if the process is gone or
    /// cannot be read.
    public static func of(_ pid: Int32) -> String {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"), !data.isEmpty else {
            return "?"
        }
        let words = data.split(separator: 0, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        return (words.last == "" ? words.dropLast() : words[...]).joined(separator: " ")
    }
}
