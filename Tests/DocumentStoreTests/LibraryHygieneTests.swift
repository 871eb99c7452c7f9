@testable import DocumentStore
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
}
