import DocumentStore
import Foundation

extension ProblemDetails {
    /// The extension members of the problem's JSON body, as a client reads them: every member but the five that
    /// RFC 9457 defines (`type`, `title`, `status`, `detail`, `instance`); a member that is not a string is left out.
    var extensionMembers: [String: String] {
        let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
        let standard: Set<String> = ["type", "title", "status", "detail", "instance"]
        return object.filter { !standard.contains($0.key) }.compactMapValues { $0 as? String }
    }
}
