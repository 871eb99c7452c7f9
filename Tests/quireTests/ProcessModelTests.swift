import Foundation
import StoreClient
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The service process never parses a PDF: poppler, cairo and GLib are mapped only by its worker processes.
@Suite("quire serve's process model")
struct ProcessModelTests {
    /// The shared libraries of the PDF stack.
    static let pdfLibraries = ["libpoppler", "libcairo", "libglib-2.0", "libgio-2.0", "libgobject-2.0"]

    /// The PDF-stack libraries process `pid` has mapped (from `/proc/PID/maps`).
    static func pdfLibrariesMapped(by pid: Int32) throws -> Set<String> {
        // procfs files report size 0: read to the end rather than trust the size.
        guard let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/maps") else {
            throw CocoaError(.fileReadNoPermission)
        }
        defer { try? handle.close() }
        let maps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        #expect(maps.contains("r-xp"), "no executable mapping read for \(pid)")
        var found: Set<String> = []
        for line in maps.split(separator: "\n") {
            guard let path = line.split(separator: " ", omittingEmptySubsequences: true).last else { continue }
            let name = path.split(separator: "/").last.map(String.init) ?? ""
            for library in pdfLibraries where name.hasPrefix(library + ".so") || name.hasPrefix(library + "-") {
                found.insert(library)
            }
        }
        return found
    }

    /// The children of `pid` (from `/proc/PID/task/*/children`).
    static func children(of pid: Int32) -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { task -> [Int32] in
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
            return text.split(separator: " ").compactMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
    }

    @Test("after an upload, text, renders and an edit, the service maps no poppler, cairo or GLib; its workers do")
    func serviceMapsNoPDFLibrary() async throws {
        let sandbox = try CoordinationSandbox()
        let service = try RunningService(sandbox: sandbox)
        let client = try service.client()
        do {
            let pdf = try Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture("metadata.pdf")))
            let document = try await client.upload(pdf: pdf)
            _ = try await client.pageText(of: document.id, page: 1)
            _ = try await client.pageImage(of: document.id, page: 1, dpi: 72)
            var patch = DocumentMetadata()
            patch.title = "Seen by a worker only"
            _ = try await client.updateMetadata(of: document.id, patch)
            _ = try await client.pageImage(of: document.id, page: 1, dpi: 72)
            let info = try await client.document(document.id)
            #expect(info.metadata.title == "Seen by a worker only")
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
        // `quire serve` replaced itself with quire-store: the pid is the service's.
        let servicePID = service.process.pid
        #expect(try Self.pdfLibrariesMapped(by: servicePID).isEmpty)
        let workers = Self.children(of: servicePID)
        #expect(!workers.isEmpty, "the service has no worker processes")
        for worker in workers {
            let command = (try? String(contentsOfFile: "/proc/\(worker)/cmdline", encoding: .utf8)) ?? "?"
            #expect(try Self.pdfLibrariesMapped(by: worker).contains("libpoppler"), "worker \(worker): \(command)")
        }
        #expect(service.stop() == 0)
    }
}
