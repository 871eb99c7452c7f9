import Documents
import Foundation

// A helper process for DocumentsTests (never shipped).
//   DocumentProbe save-loop FILE     saves FILE again and again, alternating two titles; prints "saving" once
//                                    the first save is done, then runs until killed.
//   DocumentProbe open FILE          opens FILE as a Document and prints "pages N" or "error MESSAGE".
/// Prints a line at once (standard output may be a pipe).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments.dropFirst()
guard let command = arguments.first, let path = arguments.dropFirst().first else {
    say("usage: DocumentProbe save-loop|open FILE")
    exit(64)
}
let url = URL(fileURLWithPath: path)
switch command {
case "save-loop":
    let document = Document(url: url)
    var round = 0
    while true {
        round += 1
        do {
            try document.setMetadata(DocumentMetadata(title: round % 2 == 0 ? "even" : "odd"))
            try document.save()
        } catch {
            say("error \(error)")
            exit(1)
        }
        if round == 1 { say("saving") }
    }
case "open":
    let document = Document(url: url, fileCoordinationEnabled: false)
    if let error = document.errors.first {
        say("error \(error)")
    } else {
        say("pages \(document.pageCount)")
    }
default:
    say("unknown command \(command)")
    exit(64)
}
