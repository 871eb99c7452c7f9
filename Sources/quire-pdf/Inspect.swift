import ArgumentParser
import Poppler
import QuireCommandLine
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `quire inspect` as `quire-pdf` runs it: the arguments `quire` parsed and handed over, and the work.
struct Inspect: ParsableCommand {
    static let configuration = InspectArguments.configuration

    @OptionGroup var arguments: InspectArguments

    func run() throws {
        try reportingFailures { try arguments.perform() }
    }
}

extension InspectArguments {
    /// Prints the facts, the text or a rendered page, as the arguments ask.
    func perform() throws {
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
