import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
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

        init(count: Int = 3, server: PostgresServer? = nil) async throws {
            let server = try server ?? PostgresServer.shared()
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
                #expect(try await client.documents().collect().map(\.id) == [uploaded.id])
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

    /// `PUT /documents/{id}/content` with `If-Match`: the status.
    static func putContent(_ pdf: Data, node: String, id: String, ifMatch etag: String) async throws -> Int {
        var request = URLRequest(url: URL(string: node + "/documents/\(id)/content")!)
        request.httpMethod = "PUT"
        request.httpBody = pdf
        request.setValue("application/pdf", forHTTPHeaderField: "Content-Type")
        request.setValue(etag, forHTTPHeaderField: "If-Match")
        request.timeoutInterval = 30
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    @Test("two PUTs with one If-Match through two nodes at once: exactly one wins, the other gets 412")
    func ifMatchAcrossNodes() async throws {
        let cluster = try await Cluster()
        // Every PUT writes bytes the document has never had, so that the winner's changes its tag.
        let versions = try ["one-page.pdf", "mixed-sizes.pdf", "page-labels.pdf", "metadata.pdf", "annotations.pdf",
            "linearized.pdf", "hundred-pages.pdf"].map { try Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture($0))) }
        do {
            let uploaded = try await cluster.clients[0].upload(pdf: versions[0])
            for round in 0..<3 {
                // The nodes serve what they hold from memory and agree within the notification lag: take the tag
                // once they all give the same one.
                let etag = try await eventually("the nodes agree on the tag") {
                    var tags: Set<String> = []
                    for client in cluster.clients { tags.insert(try await client.document(uploaded.id).etag) }
                    return tags.count == 1 ? tags.first : nil
                }
                let bodies = (versions[1 + 2 * round], versions[2 + 2 * round])
                let urls = (cluster.nodes[1].url, cluster.nodes[2].url)
                async let a = Self.putContent(bodies.0, node: urls.0, id: uploaded.id, ifMatch: etag)
                async let b = Self.putContent(bodies.1, node: urls.1, id: uploaded.id, ifMatch: etag)
                let statuses = try await [a, b].sorted()
                #expect(statuses == [200, 412], "round \(round): \(statuses)")
            }
        } catch {
            await cluster.shutdown()
            throw error
        }
        await cluster.shutdown()
    }

    @Test("one external cp over a registered file that every node holds open gives exactly one changed event cluster-wide")
    func externalChangeOnce() async throws {
        let cluster = try await Cluster()
        do {
            let shared = cluster.sandboxes[0]
            let path = try shared.copyFixture("one-page.pdf", as: "report.pdf")
            let registered = try await cluster.clients[0].register(files: [path])
            for client in cluster.clients { _ = try await client.document(registered.id) }  // open on every node
            let recorder = EventRecorder(client: cluster.clients[2], after: 0)
            defer { recorder.cancel() }
            _ = try await recorder.waitForEvents(1)  // created
            let replacement = try Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture("mixed-sizes.pdf")))
            try replacement.write(to: URL(fileURLWithPath: path))  // a plain overwrite, as cp does
            _ = try await recorder.waitForEvents(2)
            // Every node has taken the change in (its info has the new tag) before the marker is made, so that a
            // second `changed` from a slower node would come before the marker's `created`.
            var tags: [String] = []
            let deadline = ContinuousClock.now + .seconds(20)
            repeat {
                tags = []
                for client in cluster.clients { tags.append(try await client.document(registered.id).etag) }
                if Set(tags).count == 1, tags[0] != registered.etag { break }
                try await Task.sleep(for: .milliseconds(20))
            } while ContinuousClock.now < deadline
            #expect(Set(tags).count == 1 && tags[0] != registered.etag, "tags by node: \(tags), first \(registered.etag); events \(recorder.events.map { "\($0.id) \($0.type)" })")
            let marker = try await cluster.clients[1].upload(
                pdf: try Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture("one-page.pdf"))))
            let events = try await eventually("the marker's created event") {
                let events = recorder.events
                return events.contains { $0.document == marker.id } ? events : nil
            }
            let changes = events.filter { $0.document == registered.id && $0.type == .changed }
            #expect(changes.count == 1, "\(events.map { "\($0.id) \($0.type) \($0.document)" })")
        } catch {
            await cluster.shutdown()
            throw error
        }
        await cluster.shutdown()
    }

    @Test("every node lists the three nodes alive, quire status shows them; a node killed with SIGKILL is shown dead within 10 s while the others go on")
    func nodesAndHeartbeats() async throws {
        let cluster = try await Cluster()
        do {
            for client in cluster.clients {
                // A node's first heartbeat may follow its listening line by a moment (and say "starting" for its
                // address when it comes before the server listens).
                let listed = try await eventually("three nodes listed with their addresses") {
                    let listed = try await client.nodes()
                    return listed.nodes.count == 3 && !listed.nodes.contains { $0.address == "starting" } ? listed : nil
                }
                #expect(listed.cluster)
                #expect(listed.nodes.allSatisfy { $0.live })
            }
            let ports = Set(try await cluster.clients[0].nodes().nodes.compactMap { Int($0.address.split(separator: ":").last ?? "") })
            #expect(ports == Set(cluster.nodes.map(\.port)))
            let status = try cluster.sandboxes[0].quire(["status", "--server", cluster.nodes[0].url])
            #expect(status.status == 0, "\(status.standardError)")
            #expect(status.output.contains("NODE"), "\(status.output)")
            #expect(status.output.split(separator: "\n").filter { $0.hasSuffix("yes") }.count == 3, "\(status.output)")

            kill(cluster.nodes[1].process.pid, SIGKILL)
            let dead = try await eventually("node 2 shown dead", timeout: .seconds(10)) {
                let nodes = try await cluster.clients[0].nodes().nodes
                return nodes.filter { !$0.live }.count == 1 ? nodes : nil
            }
            #expect(dead.filter { $0.live }.count == 2)
            let pdf = try Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture("one-page.pdf")))
            let uploaded = try await cluster.clients[2].upload(pdf: pdf)
            #expect(try await cluster.clients[0].document(uploaded.id).etag == uploaded.etag)
        } catch {
            await cluster.shutdown()
            throw error
        }
        await cluster.shutdown()
    }

    @Test("the node that registered a document is killed with SIGKILL: an external cp of the file is still reported, once, by the others")
    func documentsOutliveTheirNode() async throws {
        let cluster = try await Cluster()
        do {
            let shared = cluster.sandboxes[0]
            let path = try shared.copyFixture("one-page.pdf", as: "kept.pdf")
            let recorder = EventRecorder(client: cluster.clients[2], after: 0)
            defer { recorder.cancel() }
            let registered = try await cluster.clients[0].register(files: [path])
            _ = try await recorder.waitForEvents(1)  // created: every node watches the file from now on
            kill(cluster.nodes[0].process.pid, SIGKILL)
            _ = cluster.nodes[0].process.waitForExit(timeout: 10)
            let replacement = try Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture("mixed-sizes.pdf")))
            try replacement.write(to: URL(fileURLWithPath: path))
            let events = try await recorder.waitForEvents(2)
            #expect(events[1].type == .changed && events[1].document == registered.id, "\(events.map(\.type))")
            let marker = try await cluster.clients[1].upload(
                pdf: try Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture("one-page.pdf"))))
            let all = try await eventually("the marker's created event") {
                recorder.events.contains { $0.document == marker.id } ? recorder.events : nil
            }
            #expect(all.filter { $0.type == .changed }.count == 1, "\(all.map { "\($0.id) \($0.type)" })")
            #expect(try await cluster.clients[1].document(registered.id).etag != registered.etag)
        } catch {
            await cluster.shutdown()
            throw error
        }
        await cluster.shutdown()
    }

    @Test("PostgreSQL restarted while two nodes take uploads: they reconnect, and every upload answered 201 is in the catalog with one created event, ids without a gap")
    func databaseRestart() async throws {
        let server = try PostgresServer.makePrivate()
        let cluster = try await Cluster(count: 2, server: server)
        let pdf = try Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture("one-page.pdf")))
        do {
            let clients = cluster.clients
            let storm = Task { () -> [String] in
                var accepted: [String] = []
                for round in 0..<60 {
                    if let info = try? await clients[round % 2].upload(pdf: pdf) { accepted.append(info.id) }
                    try? await Task.sleep(for: .milliseconds(25))
                }
                return accepted
            }
            try await Task.sleep(for: .milliseconds(300))  // some uploads before the restart
            try server.restart()
            let accepted = await storm.value
            // Both nodes serve again: an upload through each succeeds.
            var after: [String] = []
            for client in cluster.clients {
                after.append(try await eventually("an upload after the restart", timeout: .seconds(30)) {
                    try? await client.upload(pdf: pdf).id
                })
            }
            let listed = Set(try await cluster.clients[1].documents().collect().map(\.id))
            #expect(Set(accepted + after).isSubset(of: listed), "lost: \(Set(accepted + after).subtracting(listed))")
            let replay = EventRecorder(client: cluster.clients[0], after: 0)
            defer { replay.cancel() }
            let events = try await replay.waitForEvents(listed.count)
            let ids = events.map(\.id)
            #expect(ids == Array(1...Int64(ids.count)), "\(ids)")
            let created = events.filter { $0.type == .created }.map(\.document)
            #expect(created.count == Set(created).count)
            #expect(Set(created) == listed)
        } catch {
            await cluster.shutdown()
            throw error
        }
        await cluster.shutdown()
    }

    @Test("one node lists itself, not as a cluster, and quire status prints no nodes")
    func singleNode() async throws {
        let sandbox = try CoordinationSandbox()
        let service = try RunningService(sandbox: sandbox)
        let client = try service.client()
        do {
            // The address is the listening one once the first heartbeat after listening is in.
            let listed = try await eventually("the node listed with its address") {
                let listed = try await client.nodes()
                return listed.nodes.first?.address == "127.0.0.1:\(service.port)" ? listed : nil
            }
            #expect(!listed.cluster)
            #expect(listed.nodes.map(\.id) == [listed.node])
            let status = try sandbox.quire(["status", "--server", service.url])
            #expect(!status.output.contains("NODE"))
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
        #expect(service.stop() == 0)
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
