import Foundation
import QuireTestSupport
import StoreClient
import Testing

/// Cluster mode: three real `quire serve --database postgres://…` nodes on the tests' private PostgreSQL, sharing
/// one store directory and one root, each with its own coordination directory (as on separate hosts).
@Suite("Cluster nodes on one PostgreSQL")
struct ClusterTests {
    /// Three nodes, their sandboxes and their clients.
    final class Cluster {
        let sandboxes: [CoordinationSandbox]
        let nodes: [RunningService]
        let clients: [StoreClient]

        init(count: Int = 3) async throws {
            let server = try PostgresServer.shared()
            let database = server.url(database: try await server.createDatabase())
            let shared = try CoordinationSandbox()
            var sandboxes = [shared]
            for _ in 1..<count { sandboxes.append(try CoordinationSandbox()) }
            let store = shared.root.appendingPathComponent("store")
            self.sandboxes = sandboxes
            nodes = try sandboxes.map {
                try RunningService(sandbox: $0, arguments: ["--database", database], store: store, root: shared.files)
            }
            clients = try nodes.map { try $0.client() }
        }

        func shutdown() async {
            for client in clients { try? await client.shutdown() }
            for node in nodes { node.stop() }
        }
    }

    @Test("a document uploaded through node 1 is served by nodes 2 and 3 with the same ETag, content and list")
    func uploadServedEverywhere() async throws {
        let cluster = try await Cluster()
        let pdf = try Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture("one-page.pdf")))
        do {
            let uploaded = try await cluster.clients[0].upload(pdf: pdf)
            for client in cluster.clients.dropFirst() {
                let info = try await client.document(uploaded.id)
                #expect(info.etag == uploaded.etag)
                #expect(try await client.content(of: uploaded.id) == pdf)
                #expect(try await client.documents().map(\.id) == [uploaded.id])
            }
        } catch {
            await cluster.shutdown()
            throw error
        }
        await cluster.shutdown()
    }

    @Test("node 3's event feed sees the events made through nodes 1 and 2, in one gap-free id order, and any node replays them")
    func eventsReachEveryNode() async throws {
        let cluster = try await Cluster()
        let pdf = try Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture("one-page.pdf")))
        do {
            let recorder = EventRecorder(client: cluster.clients[2], after: 0)
            defer { recorder.cancel() }
            try await recorder.waitForConnections(1)
            var made: [String] = []
            for round in 0..<3 {
                made.append(try await cluster.clients[round % 2].upload(pdf: pdf).id)
            }
            let seen = try await recorder.waitForEvents(3)
            #expect(seen.map(\.type) == [.created, .created, .created])
            #expect(seen.map(\.document) == made)
            let ids = seen.map(\.id)
            #expect(ids == Array(ids.first!...(ids.first! + 2)), "gap-free, in order: \(ids)")
            // Node 2 replays the same log from the start.
            let replay = EventRecorder(client: cluster.clients[1], after: 0)
            defer { replay.cancel() }
            #expect(try await replay.waitForEvents(3).map(\.id) == ids)
        } catch {
            await cluster.shutdown()
            throw error
        }
        await cluster.shutdown()
    }

    @Test("a node whose database is unreachable says so in one line and exits 73")
    func unreachableDatabase() throws {
        let sandbox = try CoordinationSandbox()
        let result = try QuireProcess.run(
            ["serve", "--port", "0", "--store", sandbox.root.appendingPathComponent("store").path,
             "--database", "postgres://quire:secret@127.0.0.1:1/quire"],
            environment: sandbox.environment, timeout: 60)
        #expect(result.status == 73, "\(result.standardError)")
        #expect(result.errorLines.count == 1, "\(result.standardError)")
        #expect(result.standardError.contains("postgres://quire@127.0.0.1:1/quire"))
        #expect(!result.standardError.contains("secret"))
    }
}
