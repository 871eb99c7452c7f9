import Glibc
import Foundation
import PDFTypes
import PDFWorkerWire

/// The fuzz target for the worker protocol: the bytes are decoded as a request, a reply, a summary, an edit
/// log and find results.
///
/// Decoding may throw a `PDFWorkerWireError` and nothing else (typed throws make anything else impossible);
/// a packet that decodes must re-encode to the same bytes, and those bytes must decode to the same value.
/// A broken property stops the run with `fatalError`, which libFuzzer records as a crash with its input.
func fuzzWire(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let packet = count == 0 ? [] : Array(UnsafeBufferPointer(start: start, count: count))
    if let request = try? PDFWorkerRequest(decoding: packet) {
        let encoded: [UInt8]
        do {
            encoded = try request.encoded()
        } catch {
            fatalError("a decoded request does not encode: \(error) (\(request))")
        }
        guard encoded == packet else { fatalError("a request re-encodes to other bytes (\(request))") }
        guard (try? PDFWorkerRequest(decoding: encoded)) == request else {
            fatalError("a re-encoded request decodes to another value (\(request))")
        }
    }
    // The payloads (a probe's summary, an edit log, find results) carry doubles, which may be NaN: their check
    // is on bytes only (decode, encode, same bytes).
    if let summary = try? PDFWorkerSummary(decoding: packet), summary.encoded() != packet {
        fatalError("a summary re-encodes to other bytes")
    }
    if let edits = try? PDFWorkerEdit.decode(packet), PDFWorkerEdit.encode(edits) != packet {
        fatalError("an edit log re-encodes to other bytes")
    }
    if let rects = try? PDFWorkerRects.decode(packet), PDFWorkerRects.encode(rects) != packet {
        fatalError("find results re-encode to other bytes")
    }
    if let reply = try? PDFWorkerReply(decoding: packet) {
        let encoded = reply.encoded()
        guard encoded == packet else { fatalError("a reply re-encodes to other bytes (\(reply))") }
        guard (try? PDFWorkerReply(decoding: encoded)) == reply else {
            fatalError("a re-encoded reply decodes to another value (\(reply))")
        }
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

/// A handful of valid packets, one per operation and status: the committed seed corpus `Fuzz/corpus/wire/`.
func seedPackets() throws(PDFWorkerWireError) -> [[UInt8]] {
    let requests = [
        PDFWorkerRequest(operation: .renderPNG, pageIndex: 0, dpi: 150),
        PDFWorkerRequest(operation: .renderPNG, pageIndex: .max, dpi: 1200, password: "pässwörd"),
        PDFWorkerRequest(operation: .text, pageIndex: 3, password: "userpw"),
        PDFWorkerRequest(operation: .probe, pageIndex: 0, password: ""),
        PDFWorkerRequest(operation: .find, pageIndex: 2, argument: "needle", caseSensitive: true),
        PDFWorkerRequest(operation: .save, pageIndex: 0, password: "pw", editsLength: 321),
    ]
    let replies = [
        PDFWorkerReply(status: .succeeded, resultLength: 12_345),
        PDFWorkerReply.succeeded(inline: Array("the text of a page".utf8)),
        PDFWorkerReply(status: .passwordRequired, message: "the PDF needs a password"),
        PDFWorkerReply(status: .damaged, message: "the document is damaged: no xref"),
        PDFWorkerReply(status: .pageOutOfRange, message: "page 8 of 7"),
        PDFWorkerReply(status: .invalidArgument, message: "resolution 0"),
        PDFWorkerReply(status: .failed, message: "out of memory – テスト"),
    ]
    let metadata = PDFMetadata(title: "Tïtle", keywords: "a, b", creationDate: Date(timeIntervalSince1970: 1.7e9))
    let payloads = [
        PDFWorkerSummary(
            isEncrypted: false,
            pages: [.init(width: 612, height: 792, label: "i"), .init(width: 100, height: 50, label: nil)],
            metadata: metadata
        ).encoded(),
        PDFWorkerEdit.encode([
            .setMetadata(metadata),
            .addAnnotation(kind: 2, page: 1, x: 1, y: 2, width: 3, height: 4, contents: "note ✓"),
        ]),
        PDFWorkerRects.encode([(1, 2, 3, 4), (5, 6, 7, 8)]),
    ]
    return try requests.map { request throws(PDFWorkerWireError) in try request.encoded() }
        + replies.map { $0.encoded() } + payloads
}

// `FuzzWire --write-seeds DIRECTORY` writes the seed packets (seed-N) and exits; anything else is libFuzzer's.
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--write-seeds" {
    for (number, packet) in try seedPackets().enumerated() {
        let path = CommandLine.arguments[2] + "/seed-\(number)"
        guard let file = fopen(path, "wb"), fwrite(packet, 1, packet.count, file) == packet.count, fclose(file) == 0
        else { fatalError("cannot write \(path)") }
    }
    exit(0)
}

var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(runFuzzerDriver(&argc, &argv) { start, count in fuzzWire(start, count) })
