import Foundation
import StoreClient
import Testing

/// StoreClient's listing (issue 28): `documentPage` and the `documents` sequence against a real `quire serve`.
@Suite("StoreClient: listing documents page by page")
struct DocumentListingClientTests {
    @Test("a store of 130 documents: the sequence lists each once, in order, in pages of 100 or of 7")
    func walkLargeStore() async throws {
        let sandbox = try CoordinationSandbox()
        let service = try RunningService(sandbox: sandbox)
        let client = try service.client()
        let uploaded = try await Self.upload(130, to: client)

        let first = try await client.documentPage()
        #expect(first.documents.map(\.id) == Array(uploaded.prefix(100)))
        let cursor = try #require(first.next)
        let second = try await client.documentPage(limit: 1000, cursor: cursor)
        #expect(second.documents.map(\.id) == Array(uploaded.dropFirst(100)))
        #expect(second.next == nil)

        let walked = try await client.documents().collect()
        #expect(walked.map(\.id) == uploaded)
        #expect(Set(walked.map(\.id)).count == 130)
        #expect(try await client.documents(pageSize: 7).collect().map(\.id) == uploaded)
        // Lazy: taking the first few reads one page only, and stops.
        var taken: [String] = []
        for try await summary in client.documents(pageSize: 1000) {
            taken.append(summary.id)
            if taken.count == 3 { break }
        }
        #expect(taken == Array(uploaded.prefix(3)))
        try await client.shutdown()
        #expect(service.stop() == 0)
    }

    @Test("states and updatedSince are asked of the service, and the walk carries them from page to page")
    func filters() async throws {
        let sandbox = try CoordinationSandbox()
        let service = try RunningService(sandbox: sandbox)
        let client = try service.client()
        let uploaded = try await Self.upload(6, to: client)
        let edited = [uploaded[1], uploaded[4]]
        var editedAt: [Date] = []
        for id in edited {
            editedAt.append(try await client.updateMetadata(of: id, DocumentMetadata(title: "Edited \(id)")).updatedAt)
        }

        #expect(try await client.documents(states: [.dirty], pageSize: 1).collect().map(\.id) == edited)
        let dirty = try await client.documents(states: [.dirty]).collect()
        #expect(dirty.allSatisfy { $0.state == .dirty && $0.title?.hasPrefix("Edited") == true })
        #expect(try await client.documents(states: [.clean, .dirty], pageSize: 2).collect().map(\.id) == uploaded)
        #expect(try await client.documents(states: [.conflict]).collect().isEmpty)
        #expect(try await client.documents(updatedSince: editedAt[0], pageSize: 1).collect().map(\.id) == edited)
        #expect(try await client.documents(updatedSince: editedAt[1]).collect().map(\.id) == [edited[1]])
        let later = editedAt[1].addingTimeInterval(3600)
        #expect(try await client.documentPage(updatedSince: later).documents.isEmpty)
        try await client.shutdown()
        #expect(service.stop() == 0)
    }

    @Test("a bad parameter is .problem 400 naming it: a limit out of range, a forged cursor, another walk's cursor")
    func badParameters() async throws {
        let sandbox = try CoordinationSandbox()
        let service = try RunningService(sandbox: sandbox)
        let client = try service.client()
        let uploaded = try await Self.upload(2, to: client)
        _ = try await client.updateMetadata(of: uploaded[0], DocumentMetadata(title: "Edited"))

        try await Self.expectInvalid("limit") { _ = try await client.documentPage(limit: 0) }
        try await Self.expectInvalid("limit") { _ = try await client.documents(pageSize: 1001).collect() }
        try await Self.expectInvalid("cursor") { _ = try await client.documentPage(cursor: "forged.cursor") }
        let page = try await client.documentPage(limit: 1)
        let cursor = try #require(page.next)
        try await Self.expectInvalid("cursor") {
            _ = try await client.documentPage(limit: 1, states: [.dirty], cursor: cursor)
        }
        try await Self.expectInvalid("cursor") {
            _ = try await client.documentPage(limit: 1, cursor: String(cursor.dropLast()))
        }
        #expect(try await client.documentPage(limit: 1, cursor: cursor).documents.map(\.id) == [uploaded[1]])
        try await client.shutdown()
        #expect(service.stop() == 0)
    }

    /// Expects `body` to throw `.problem` with status 400, type `/problems/invalid-parameter`, naming `parameter`.
    static func expectInvalid(
        _ parameter: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
    ) async throws {
        do {
            try await body()
            Issue.record("no error; expected 400 naming \(parameter)", sourceLocation: sourceLocation)
        } catch let error as StoreClientError where error.code == .problem {
            let problem = try #require(error.problem)
            #expect(problem.status == 400, sourceLocation: sourceLocation)
            #expect(problem.type == "/problems/invalid-parameter", sourceLocation: sourceLocation)
            #expect(problem.parameter == parameter, "\(problem.message)", sourceLocation: sourceLocation)
        }
    }

    /// Uploads `count` distinct one-page PDFs (one-page.pdf, a different comment after `%%EOF` each), one after
    /// the other, so that they enter the store in that order (the listing's); their ids.
    static func upload(_ count: Int, to client: StoreClient) async throws -> [String] {
        let template = try Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture("one-page.pdf")))
        var ids: [String] = []
        for index in 0..<count {
            ids.append(try await client.upload(pdf: template + Data("\n% document \(index)\n".utf8)).id)
        }
        return ids
    }
}
