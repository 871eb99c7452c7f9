import Foundation
import Testing

/// StoreCore knows no HTTP (DESIGN.md §1): its sources import no HTTP module, name no precondition header, and
/// answer with no NIO byte buffer (response bodies are made in DocumentStore). The check reads the sources.
@Suite("StoreCore knows no HTTP")
struct StoreCoreBoundaryTests {
    /// The package's `Sources/StoreCore`, found from this file's path.
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/StoreCore", isDirectory: true)

    /// Modules of HTTP: the server, its types, NIO's codecs, the client.
    static let httpModules = [
        "Hummingbird", "HummingbirdCore", "HummingbirdTesting", "HTTPTypes", "HTTPTypesFoundation", "NIOHTTP1",
        "NIOHTTP2", "NIOHTTPTypes", "NIOHTTPTypesHTTP1", "AsyncHTTPClient",
    ]

    /// Header names whose syntax belongs to the HTTP edge.
    static let headerNames = ["If-Match", "If-None-Match"]

    /// The files that may name `ByteBuffer`: the upload intake, which writes the pieces of a streamed body (NIO's
    /// buffers) to a file. No file may answer with one (a body is DocumentStore's to make).
    static let byteBufferFiles: Set<String> = [
        "Upload/IncomingUpload.swift", "Upload/UploadIntake.swift", "Library/DocumentLibrary.swift",
    ]

    /// What in `text` (the file at `path` under `Sources/StoreCore`) belongs to HTTP, one line each.
    static func violations(in text: String, path: String) -> [String] {
        var found: [String] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let place = "\(path):\(index + 1)"
            if let module = importedModule(line), httpModules.contains(module) {
                found.append("\(place): imports \(module)")
            }
            for name in headerNames where line.range(of: name, options: .caseInsensitive) != nil {
                found.append("\(place): names \(name)")
            }
            if line.contains("ByteBuffer") {
                if !byteBufferFiles.contains(path) {
                    found.append("\(place): uses ByteBuffer")
                } else if let arrow = line.range(of: "->") {
                    // The result type: up to a `where` clause or the body.
                    let result = line[arrow.upperBound...].split(separator: "{").first?
                        .components(separatedBy: " where ").first ?? ""
                    if result.contains("ByteBuffer") { found.append("\(place): answers with a ByteBuffer") }
                }
            }
        }
        return found
    }

    /// The module an `import` line imports (`import X`, `@testable import X.Y`, `import struct X.Y`), or nil.
    static func importedModule(_ line: Substring) -> String? {
        var words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })[...]
        while let first = words.first, first.hasPrefix("@") { words = words.dropFirst() }
        guard words.first == "import" else { return nil }
        words = words.dropFirst()
        let kinds: Set<Substring> = ["struct", "class", "enum", "protocol", "func", "var", "let", "typealias"]
        if let first = words.first, kinds.contains(first) { words = words.dropFirst() }
        return words.first?.split(separator: ".").first.map(String.init)
    }

    @Test("no source of StoreCore imports an HTTP module, names If-Match or If-None-Match, or answers with bytes")
    func storeCoreKnowsNoHTTP() throws {
        let enumerator = try #require(FileManager.default.enumerator(at: Self.sources, includingPropertiesForKeys: nil))
        var checked = 0
        var found: [String] = []
        let prefix = Self.sources.standardizedFileURL.path + "/"
        for case let url as URL in enumerator where url.pathExtension == "swift" {
            let path = String(url.standardizedFileURL.path.dropFirst(prefix.count))
            found += Self.violations(in: try String(contentsOf: url, encoding: .utf8), path: path)
            checked += 1
        }
        // Not vacuous: the sources were found (StoreCore has some eighty files).
        #expect(checked > 50, "found only \(checked) Swift files under \(Self.sources.path)")
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    @Test("the check finds what it looks for")
    func checkFindsViolations() {
        #expect(Self.violations(in: "import Hummingbird", path: "A.swift").count == 1)
        #expect(Self.violations(in: "@preconcurrency import HTTPTypes", path: "A.swift").count == 1)
        #expect(Self.violations(in: "import struct NIOHTTP1.HTTPHeaders", path: "A.swift").count == 1)
        #expect(Self.violations(in: "/// send If-None-Match", path: "A.swift").count == 1)
        #expect(Self.violations(in: #"let name = "if-match""#, path: "A.swift").count == 1)
        #expect(Self.violations(in: "func body() -> ByteBuffer {", path: "A.swift").count == 1)
        #expect(
            Self.violations(in: "func content() -> (ByteBuffer, EntityTag)", path: "Upload/UploadIntake.swift").count
                == 1)
        #expect(
            Self.violations(
                in: "func receive() async throws -> Upload where Body.Element == ByteBuffer {",
                path: "Upload/UploadIntake.swift"
            ).isEmpty)
        #expect(
            Self.violations(in: "func receive() -> Upload where Body.Element == ByteBuffer {", path: "A.swift").count
                == 1)
        #expect(Self.violations(in: "import NIOCore\nimport Foundation\n// ifMatch", path: "A.swift").isEmpty)
    }
}
