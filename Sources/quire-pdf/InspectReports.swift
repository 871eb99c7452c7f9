import Poppler
import QuireCommandLine
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What `quire inspect FILE` prints.
struct InfoReport: Encodable {
    let file: String
    let info: PDFInfo

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(file, forKey: .file)
        try container.encode(info.pageCount, forKey: .pageCount)
        try container.encode(info.pages.map { Page(page: $0.index + 1, width: $0.size.width, height: $0.size.height, label: $0.label) }, forKey: .pages)
        try container.encode(info.metadata, forKey: .metadata)
        try container.encode(info.encrypted, forKey: .encrypted)
        try container.encode(info.neededPassword, forKey: .neededPassword)
        try container.encode(info.permissions, forKey: .permissions)
        try container.encode(info.pdfVersion, forKey: .pdfVersion)
        try container.encode(info.linearized, forKey: .linearized)
    }

    private enum CodingKeys: String, CodingKey {
        case file, pageCount, pages, metadata, encrypted, neededPassword, permissions, pdfVersion, linearized
    }

    private struct Page: Encodable {
        let page: Int
        let width: Double
        let height: Double
        let label: String?
    }

    /// The human-readable form: one fact per line, runs of same-sized pages grouped.
    var text: String {
        var lines: [(String, String)] = [("File", file)]
        let metadata = info.metadata
        let optional: [(String, String?)] = [
            ("Title", metadata.title), ("Author", metadata.author), ("Subject", metadata.subject),
            ("Keywords", metadata.keywords), ("Creator", metadata.creator), ("Producer", metadata.producer),
            ("Created", metadata.creationDate?.formatted(.iso8601)),
            ("Modified", metadata.modificationDate?.formatted(.iso8601)),
        ]
        for (name, value) in optional { if let value, !value.isEmpty { lines.append((name, value)) } }
        lines.append(("Pages", String(info.pageCount)))
        lines.append(("Encrypted", info.encrypted ? (info.neededPassword ? "yes (password needed)" : "yes") : "no"))
        lines.append(("Permissions", info.permissions.isEmpty ? "none" : info.permissions.joined(separator: ", ")))
        lines.append(("Linearized", info.linearized ? "yes" : "no"))
        lines.append(("PDF version", String(info.pdfVersion.trimmingPrefix("PDF-"))))
        for run in sizeRuns() { lines.append((run.0, run.1)) }
        let labels = info.pages.map { $0.label ?? "" }
        if labels != info.pages.map({ String($0.index + 1) }) {
            lines.append(("Labels", labels.joined(separator: ", ")))
        }
        return lines.map { name, value in
            let label = name + ":"
            return label + String(repeating: " ", count: max(1, 13 - label.count)) + value
        }.joined(separator: "\n") + "\n"
    }

    private func sizeRuns() -> [(String, String)] {
        var runs: [(first: Int, last: Int, size: PDFPageSize)] = []
        for page in info.pages {
            if let last = runs.last, last.size == page.size, last.last == page.index - 1 {
                runs[runs.count - 1].last = page.index
            } else {
                runs.append((page.index, page.index, page.size))
            }
        }
        return runs.map { run in
            let name = run.first == run.last ? "Page \(run.first + 1)" : "Pages \(run.first + 1)-\(run.last + 1)"
            return (name, "\(Self.points(run.size.width)) x \(Self.points(run.size.height)) pt")
        }
    }

    private static func points(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}

/// What `quire inspect --text --json` prints.
struct TextReport: Encodable {
    struct Page: Encodable {
        let page: Int
        let text: String
    }

    let file: String
    let pages: [Page]
}

/// What `quire inspect --render --json` prints.
struct RenderReport: Encodable {
    let file: String
    let page: Int
    let dpi: Double
    let output: String
    let width: Int
    let height: Int
    let bytes: Int
}
