// A runnable example of the Documents library:
//   swift run DocumentExample FILE.pdf [--changes N]
// opens FILE.pdf as a Document, prints its pages, then reacts to every change another program makes to the
// file (try `quire write FILE.pdf --from other.pdf`, `cp other.pdf FILE.pdf`, `touch FILE.pdf`, `rm FILE.pdf`
// in another terminal) until it has seen N changes (default: until interrupted).
import Documents
import Foundation

let arguments = CommandLine.arguments.dropFirst()
guard let path = arguments.first else {
    FileHandle.standardError.write(Data("usage: DocumentExample FILE.pdf [--changes N]\n".utf8))
    exit(64)
}
/// Prints a line at once, also when standard output is a pipe.
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

let limit = arguments.firstIndex(of: "--changes").flatMap { Int(arguments[$0 + 1]) } ?? .max

func printPages(of document: Document) {
    say("\(document.pageCount) pages, title: \(document.metadata.title ?? "(none)")")
    for index in 0..<document.pageCount {
        guard let page = try? document.pageInfo(at: index) else { continue }
        let firstLine = (try? document.text(ofPageAt: index))?.split(separator: "\n").first ?? ""
        say(
            "  page \(page.label ?? String(index + 1)): "
                + "\(Int(page.size.width))×\(Int(page.size.height)) pt  \(firstLine)"
        )
    }
}

let document = Document(url: URL(fileURLWithPath: path))
if let error = document.errors.first {
    FileHandle.standardError.write(Data("DocumentExample: \(error)\n".utf8))
    exit(66)
}
printPages(of: document)

// The document does not register its presenters: whoever keeps it open does.
FilePresenterCoordinator.shared.observe(document.filePresenters)
say("watching \(path) — change it from another program")

var seen = 0
for await change in document.underlyingFileChanges {
    seen += 1
    if change.isDeletion {
        say(
            "the file was deleted; the document keeps its pages in memory "
                + "(conflict: \(document.conflict?.type.rawValue ?? "none"))"
        )
        try document.resolveFileConflict(for: change.dataProvider, with: .save)
        say("restored it from memory")
    } else {
        say("the file changed; the document reloaded it:")
        printPages(of: document)
    }
    if seen >= limit { break }
}
FilePresenterCoordinator.shared.unobserve(document.filePresenters)
