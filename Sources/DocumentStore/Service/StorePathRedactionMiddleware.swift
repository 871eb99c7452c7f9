import Foundation
import Hummingbird

/// Keeps the store directory's paths out of the document routes' problem details: a message passed through from
/// poppler or the file system names an uploaded document's file by its path in the store, which tells a client
/// where the server keeps its data. The path of an upload becomes its file name (`ID.pdf`); any other path in the
/// store becomes "the store directory". Registered documents keep the paths the client gave.
struct StorePathRedactionMiddleware<Context: RequestContext>: RouterMiddleware {
    /// What to replace, longest first, and with what.
    private let replacements: [(path: String, replacement: String)]

    /// Redacts the paths of `storeDirectory` (as configured and with symbolic links resolved).
    init(storeDirectory: URL) {
        let forms = Set([storeDirectory.standardizedFileURL.path, storeDirectory.resolvingSymlinksInPath().path])
            .filter { $0.count > 1 }
        replacements = forms.flatMap { store in
            [(store + "/files/", ""), (store, "the store directory")]
        }
        .sorted { $0.0.count > $1.0.count }
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch var problem as ProblemDetails {
            problem.detail = problem.detail.map(redact)
            throw problem
        }
    }

    /// `text` without the store directory's paths.
    func redact(_ text: String) -> String {
        replacements.reduce(text) { text, entry in text.replacingOccurrences(of: entry.path, with: entry.replacement) }
    }
}
