@testable import DocumentStore
@testable import StoreCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// What the library leaves behind: lanes of idle documents, temporary files of interrupted writes, the file of a
/// document closed by a conflict resolution.
@Suite("Library hygiene")
struct LibraryHygieneTests {
    @Test("Per-document lanes leave the map once their operations are over, deleted documents' too")
    func lanesAreRemoved() async throws {
        let service = try DocumentService(maxOpenDocuments: 4)
        try await service.run { client in
            var created: [(id: String, tag: String)] = []
            for _ in 0..<12 {
                let response = try await client.upload("one-page.pdf")
                created.append((try #require(try jsonObject(response)["id"] as? String), response.headers[.eTag] ?? ""))
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (id, _) in created {
                    for round in 0..<3 {
                        group.addTask {
                            _ = try await client.execute(uri: "/documents/\(id)/pages/1/text", method: .get)
                            _ = try await client.send(
                                "/documents/\(id)/metadata", .patch, json: #"{"subject": "round \#(round)"}"#)
                            _ = try await client.execute(uri: "/documents/\(id)/conflict", method: .get)
                        }
                    }
                }
                try await group.waitForAll()
            }
            for (id, _) in created.prefix(6) {
                let tag = try #require(
                    try await client.execute(uri: "/documents/\(id)", method: .get).headers[.eTag])
                let deleted = try await client.execute(
                    uri: "/documents/\(id)", method: .delete, headers: [.ifMatch: tag])
                #expect(deleted.status == .noContent)
                #expect(
                    try await client.execute(uri: "/documents/\(id)/pages/1/text", method: .get).status == .notFound)
            }
            // Background work (a presenter's report) may still hold a lane for a moment: wait, bounded.
            let deadline = ContinuousClock.now + .seconds(10)
            while service.library.laneCount > 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(service.library.laneCount == 0)
        }
    }

    @Test("At start the temporary files of interrupted writes go; look-alikes and other files stay")
    func orphanedTemporaryFiles() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let uploaded = try #require(try jsonObject(try await client.upload("one-page.pdf"))["id"] as? String)
            let registeredFile = try service.place("mixed-sizes.pdf", as: "report.pdf")
            let register = try await client.send("/documents", .post, json: #"{"files": ["\#(registeredFile.path)"]}"#)
            #expect(register.status == .created)
            let files = service.configuration.storeDirectory.appendingPathComponent("files")
            let root = service.root
            let orphans = [
                files.appendingPathComponent(".\(uploaded).quire-Ab12Cd.pdf"),
                files.appendingPathComponent(".gone.quire-ZZZZZZ.pdf"),
                root.appendingPathComponent(".report.quire-x1Y2z3.pdf"),
            ]
            let survivors = [
                root.appendingPathComponent(".other.quire-x1Y2z3.pdf"),  // not a document's file
                root.appendingPathComponent(".report.quire-x1Y2.pdf"),  // not the pattern
                root.appendingPathComponent("report.quire-x1Y2z3.pdf"),
                files.appendingPathComponent(".\(uploaded).quire-Ab12Cd.pdf.keep"),
            ]
            let old = Date(timeIntervalSinceNow: -3600)
            for url in orphans + survivors {
                try Data("partial".utf8).write(to: url)
                try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: url.path)
            }
            let recent = root.appendingPathComponent(".report.quire-NEW123.pdf")  // a write of this run
            try Data("partial".utf8).write(to: recent)

            await service.library.catchUp()

            for url in orphans {
                #expect(!FileManager.default.fileExists(atPath: url.path), "\(url.lastPathComponent)")
            }
            for url in survivors + [recent, registeredFile, files.appendingPathComponent("\(uploaded).pdf")] {
                #expect(FileManager.default.fileExists(atPath: url.path), "\(url.lastPathComponent)")
            }
        }
    }

    @Test("The names of sinks' temporary files are recognised exactly")
    func temporaryFileNames() {
        #expect(DocumentLibrary.temporaryFileTarget(".a.quire-Ab12Cd.pdf") == "a.pdf")
        #expect(DocumentLibrary.temporaryFileTarget(".a.b.quire-Ab12Cd.pdf") == "a.b.pdf")
        #expect(DocumentLibrary.temporaryFileTarget(".README.quire-Ab12Cd") == "README")
        #expect(DocumentLibrary.temporaryFileTarget("..hidden.quire-Ab12Cd.pdf") == ".hidden.pdf")
        for name in [
            "a.quire-Ab12Cd.pdf", ".quire-Ab12Cd.pdf", ".a.quire-Ab12C.pdf", ".a.quire-Ab12Cd-.pdf",
            ".a.quire-Ab12Cd.", ".a.quire-Ab 2Cd.pdf", ".a.quire-Ab12Cd.pdf.x", ".a.pdf",
        ] {
            #expect(DocumentLibrary.temporaryFileTarget(name) == nil, "\(name)")
        }
    }

    @Test("Closing a conflict of an upload whose file cannot be removed is a problem, and the document stays")
    func closeReportsFailure() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let id = try #require(try jsonObject(try await client.upload("one-page.pdf"))["id"] as? String)
            let patched = try await client.send("/documents/\(id)/metadata", .patch, json: #"{"title": "Edited"}"#)
            #expect(patched.status == .ok)
            let file = service.configuration.storeDirectory.appendingPathComponent("files/\(id).pdf")
            try FileManager.default.removeItem(at: file)
            // The deletion under the edit: the document is `deleted`, in a deletion conflict.
            let deleted = try await service.waitForEvent(.deleted, of: id)
            #expect(deleted != nil)
            // Something the coordinated deletion (unlink) cannot remove takes the file's place.
            try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)
            try Data("x".utf8).write(to: file.appendingPathComponent("inside"))

            let response = try await client.send(
                "/documents/\(id)/conflict/resolve", .post, json: #"{"resolution": "close"}"#)
            #expect(response.status == .internalServerError)
            #expect(response.headers[.contentType] == "application/problem+json")
            let problem = try jsonObject(response)
            #expect(problem["type"] as? String == "/problems/file-not-removed")
            #expect((problem["detail"] as? String)?.contains(id) == true)
            #expect(FileManager.default.fileExists(atPath: file.appendingPathComponent("inside").path))
            #expect(try await client.execute(uri: "/documents/\(id)/conflict", method: .get).status == .ok)
            #expect(try await service.events().contains { $0.type == .resolved } == false)
        }
    }
}
