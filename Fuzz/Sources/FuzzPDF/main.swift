import Foundation
import Poppler

/// The passwords tried, chosen by the input's length so that a run covers each: none, the fixtures' user
/// password and their owner password (the wrapper always tries no password first).
private let passwords: [String?] = [nil, "userpw", "ownerpw"]
/// How many pages' size and label are read.
private let pagesRead = 64
/// How many pages' text is read.
private let pagesWithText = 3
/// The resolution of the one page rendered: a few hundred pixels for a letter page.
private let renderDPI = 4.0
/// The largest render attempted, in pixels (a hostile page size must not make the run slow).
private let renderPixelLimit = 40_000

/// The fuzz target for the PDF open/info/text path of the Poppler wrapper.
///
/// Opening may fail with a `PDFError`; every other outcome than a thrown error or a value is a bug in the wrapper
/// or in poppler. Each call's result is checked where the wrapper promises something (sizes are finite).
func fuzzPDF(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = count == 0 ? Data() : Data(bytes: start!, count: count)
    guard let document = try? PDFDocument(data: data, password: passwords[count % passwords.count]) else {
        return 0
    }
    _ = document.metadata
    _ = document.pdfVersion
    _ = document.permissions
    _ = document.isLinearized
    for index in 0..<min(document.pageCount, pagesRead) {
        _ = try? document.pageInfo(at: index)
    }
    for index in 0..<min(document.pageCount, pagesWithText) {
        _ = try? document.text(ofPageAt: index)
    }
    if document.pageCount > 0, let size = try? document.renderSize(pageAt: 0, dpi: renderDPI),
        case (let area, false) = size.width.multipliedReportingOverflow(by: size.height), area <= renderPixelLimit
    {
        _ = try? document.renderBitmap(pageAt: 0, dpi: renderDPI)
    }
    return 0
}

/// libFuzzer's driver (`-sanitize=fuzzer` links it): parses libFuzzer's flags and calls the target per input.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ target: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(runFuzzerDriver(&argc, &argv) { start, count in fuzzPDF(start, count) })
