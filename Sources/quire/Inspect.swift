import ArgumentParser
import Poppler
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `quire inspect`: a PDF's facts, its text, or one rendered page.
struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a PDF's pages, sizes, labels, metadata and permissions, its text, or a rendered page.",
        discussion: """
            Exit codes: 0 success; 64 bad usage (page, range or resolution); 65 not a usable PDF (empty, damaged, \
            invalid); 66 input unreadable; 70 internal failure; 73 output not writable; 77 encrypted (password \
            missing or wrong).
            """
    )

    @Argument(help: "The PDF file to inspect.")
    var file: String

    @Option(help: "The user or owner password of an encrypted PDF.")
    var password: String?

    @Flag(help: "Print one JSON document instead of text.")
    var json = false

    @Flag(help: "Print the text of the pages (each page ends with a form feed).")
    var text = false

    @Option(help: ArgumentHelp("With --text: the pages to print, 1-based, such as 1-3,7,10- (default: all).", valueName: "range"))
    var pages: String?

    @Option(help: ArgumentHelp("Render this page (1-based) to the PNG file given by -o.", valueName: "page"))
    var render: Int?

    @Option(help: ArgumentHelp("The resolution for --render, in dots per inch (at most 1200).", valueName: "n"))
    var dpi: Double = 150

    @Option(name: .shortAndLong, help: ArgumentHelp("The PNG file --render writes.", valueName: "out.png"))
    var output: String?

    @Option(help: ArgumentHelp("How many threads extract text (default: one per processor).", valueName: "n"))
    var jobs: Int?

    func run() throws {
        try reportingFailures {
            guard !(text && render != nil) else {
                throw CommandFailure("--text and --render cannot be used together", exitCode: CommandFailure.usage)
            }
            if let jobs, jobs < 1 {
                throw CommandFailure("--jobs must be at least 1", exitCode: CommandFailure.usage)
            }
            let data = try readInput()
            if text {
                try printText(data)
            } else if let render {
                try renderPage(data, page: render)
            } else {
                try printInfo(data)
            }
        }
    }

    private func readInput() throws -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw CommandFailure("\(file): cannot read the file (\(Self.reason(error)))", exitCode: CommandFailure.noInput)
        }
    }

    private func open(_ data: Data) throws -> PDFDocument {
        do {
            return try PDFDocument(data: data, password: password)
        } catch {
            throw CommandFailure(error, file: file)
        }
    }

    private func printInfo(_ data: Data) throws {
        let info: PDFInfo
        do {
            info = try open(data).info()
        } catch let error as PDFError {
            throw CommandFailure(error, file: file)
        }
        if json {
            StandardStreams.print(try JSONOutput.encode(InfoReport(file: file, info: info)) + "\n")
        } else {
            StandardStreams.print(InfoReport(file: file, info: info).text)
        }
    }

    private func printText(_ data: Data) throws {
        let selection: [Int]?
        if let pages {
            guard let parsed = PageRange.parse(pages) else {
                throw CommandFailure("--pages \(pages): expected a list such as 1-3,7,10-", exitCode: CommandFailure.usage)
            }
            // Only an open-ended range ("10-") needs the page count; otherwise the extractor's own
            // documents report pages that do not exist, and the file is not opened an extra time.
            selection = try parsed.closedIndexes ?? parsed.indexes(pageCount: open(data).pageCount, file: file)
        } else {
            selection = nil
        }
        let texts: [String]
        do {
            texts = try PDFTextExtractor.text(of: data, password: password, pages: selection, workers: jobs)
        } catch {
            throw CommandFailure(error, file: file)
        }
        if json {
            let numbers = selection ?? Array(0..<texts.count)
            let report = TextReport(
                file: file, pages: zip(numbers, texts).map { TextReport.Page(page: $0 + 1, text: $1) })
            StandardStreams.print(try JSONOutput.encode(report) + "\n")
        } else {
            var output: [UInt8] = []
            output.reserveCapacity(texts.reduce(0) { $0 + $1.utf8.count + 2 })
            for page in texts {
                output.append(contentsOf: page.utf8)
                output.append(UInt8(ascii: "\n"))
                output.append(0x0C)
            }
            StandardStreams.write(output)
        }
    }

    private func renderPage(_ data: Data, page: Int) throws {
        guard let output else {
            throw CommandFailure("--render needs an output file: -o OUT.png", exitCode: CommandFailure.usage)
        }
        let document = try open(data)
        let png: Data
        do {
            png = try document.renderPNG(pageAt: page - 1, dpi: dpi)
        } catch {
            throw CommandFailure(error, file: file)
        }
        do {
            try png.write(to: URL(fileURLWithPath: output))
        } catch {
            throw CommandFailure("\(output): cannot write the image (\(Self.reason(error)))", exitCode: CommandFailure.cannotCreate)
        }
        if json {
            let size = try document.renderSize(pageAt: page - 1, dpi: dpi)
            let report = RenderReport(
                file: file, page: page, dpi: dpi, output: output, width: size.width, height: size.height,
                bytes: png.count)
            StandardStreams.print(try JSONOutput.encode(report) + "\n")
        }
    }

    private static func reason(_ error: any Error) -> String {
        if let cocoa = error as? CocoaError, let path = cocoa.filePath {
            switch cocoa.code {
            case .fileReadNoSuchFile, .fileNoSuchFile: return "no such file: \(path)"
            case .fileReadNoPermission, .fileWriteNoPermission: return "permission denied"
            default: break
            }
        }
        return "\(error)"
    }
}
