import Foundation
import Hummingbird
import StoreCore

/// Keeps the store directory's paths out of the document routes' problem details: a message passed through from
/// poppler or the file system names an uploaded document's file by its path in the store, which tells a client
/// where the server keeps its data. The path of an upload becomes its file name (`ID.pdf`); any other path in the
/// store becomes "the store directory". Registered documents keep the paths the client gave.
struct StorePathRedactionMiddleware<Context: RequestContext>: RouterMiddleware {
    /// What to replace, longest first, and with what: each path only where it ends (at the end of the text or
    /// before a character that cannot continue a file name), so that `/data/store-roots/a.pdf` stays whole
    /// when the store is `/data/store`.
    private let replacements: [(pattern: NSRegularExpression, replacement: String)]

    /// Redacts the paths of `storeDirectory` (as configured and with symbolic links resolved).
    init(storeDirectory: URL) {
        let forms = Set([storeDirectory.standardizedFileURL.path, storeDirectory.resolvingSymlinksInPath().path])
            .filter { $0.count > 1 }
        let pairs = forms.flatMap { store in [(store + "/files/", ""), (store, "the store directory")] }
            .sorted { $0.0.count > $1.0.count }
        replacements = pairs.compactMap { path, replacement in
            let ending = path.hasSuffix("/") ? "" : "(?=$|[^A-Za-z0-9._~+-])"
            guard
                let pattern = try? NSRegularExpression(
                    pattern: NSRegularExpression.escapedPattern(for: path) + ending)
            else { return nil }
            return (pattern, NSRegularExpression.escapedTemplate(for: replacement))
        }
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let problem as ProblemDetails {
            throw redacted(problem)
        } catch let error as StoreError {
            throw redacted(ProblemDetails(error))
        }
    }

    /// `problem` with its detail redacted.
    private func redacted(_ problem: ProblemDetails) -> ProblemDetails {
        var problem = problem
        problem.detail = problem.detail.map(redact)
        return problem
    }

    /// `text` without the store directory's paths.
    func redact(_ text: String) -> String {
        replacements.reduce(text) { text, entry in
            entry.pattern.stringByReplacingMatches(
                in: text, range: NSRange(text.startIndex..., in: text), withTemplate: entry.replacement)
        }
    }
}
