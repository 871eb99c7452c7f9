import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import QuireTestSupport
import StoreClient
import Synchronization
import Testing

/// Cluster mode's owners: each document is kept by one node (the one that made it, or took it over), which holds
/// its unsaved edits and its conflict; the other nodes forward what needs them, and take a dead owner's documents
/// over.
@Suite("Cluster nodes: document owners, forwarding and takeover")
struct ClusterOwnershipTests {
    typealias Cluster = ClusterTests.Cluster

    /// A request through `node` (a base URL): its status and body.
    static func send(
        _ method: String, _ path: String, node: String, body: Data? = nil, contentType: String? = nil,
        headers: [String: String] = [:]
    ) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: URL(string: node + path)!)
        request.httpMethod = method
        request.httpBody = body
        if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.timeoutInterval = 30
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    @Test("a document edited through node 2 is dirty on its owner, node 1; a stale PUT is refused on every node; a program's write puts it in conflict, seen from every node and resolved through node 2; a PUT through node 2 drops the edits as on one node")
    func conflictVisibleAndResolvableEverywhere() async throws {
        let cluster = try await Cluster()
        let pdf = try Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture("one-page.pdf")))
        let other = try Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture("mixed-sizes.pdf")))
        do {
            let uploaded = try await cluster.clients[0].upload(pdf: pdf)  // node 1 owns it
            let recorder = EventRecorder(client: cluster.clients[2], after: 0)
            defer { recorder.cancel() }
            _ = try await recorder.waitForEvents(1)
            // The edit goes to the owner: every node shows it, dirty, with the edited title.
            let edited = try await cluster.clients[1].updateMetadata(
                of: uploaded.id, DocumentMetadata(title: "edited through node 2"), ifMatch: uploaded.etag)
            #expect(edited.state == .dirty && edited.metadata.title == "edited through node 2")
            #expect(edited.version == uploaded.version + 1)
            for (index, client) in cluster.clients.enumerated() {
                let info = try await eventually("node \(index + 1) shows the edit") {
                    let info = try await client.document(uploaded.id)
                    return info.state == .dirty ? info : nil
                }
                #expect(info.metadata.title == "edited through node 2", "node \(index + 1)")
                #expect(info.etag == edited.etag, "node \(index + 1)")
            }
            // The version from before the edit is stale, whichever node gets the PUT.
            for node in cluster.nodes {
                let put = try await ClusterTests.putContent(other, node: node.url, id: uploaded.id, ifMatch: uploaded.etag)
                #expect(put == 412, "through \(node.url)")
            }
            // A program that does not coordinate writes the file under the owner's unsaved edits: a conflict.
            try other.write(to: URL(fileURLWithPath: uploaded.files[0].path), options: .atomic)
            for (index, client) in cluster.clients.enumerated() {
                let info = try await eventually("node \(index + 1) shows the conflict") {
                    let info = try await client.document(uploaded.id)
                    return info.state == .conflict ? info : nil
                }
                #expect(info.conflict == .modification, "node \(index + 1)")
                let report = try await client.conflict(of: uploaded.id)
                #expect(report.conflict?.type == .modification, "node \(index + 1): \(report)")
            }
            // Resolved through a node that does not own it: the owner's edits are written over the new content.
            let resolved = try await cluster.clients[1].resolveConflict(of: uploaded.id, by: .save)
            #expect(resolved?.state == .clean && resolved?.metadata.title == "edited through node 2")
            for (index, client) in cluster.clients.enumerated() {
                let info = try await eventually("node \(index + 1) shows it resolved") {
                    let info = try await client.document(uploaded.id)
                    return info.state == .clean && info.etag == resolved?.etag ? info : nil
                }
                #expect(info.metadata.title == "edited through node 2", "node \(index + 1)")
                #expect(try await client.content(of: uploaded.id) == client.content(of: uploaded.id))
            }
            // Edited again through node 3, then replaced through node 2 with the current version: the owner decides,
            // as one node would: 200, the edits dropped, clean everywhere.
            let current = try await cluster.clients[0].document(uploaded.id)
            let again = try await cluster.clients[2].updateMetadata(
                of: uploaded.id, DocumentMetadata(title: "edited again"), ifMatch: current.etag)
            #expect(again.state == .dirty)
            let put = try await ClusterTests.putContent(pdf, node: cluster.nodes[1].url, id: uploaded.id, ifMatch: again.etag)
            #expect(put == 200)
            for (index, client) in cluster.clients.enumerated() {
                let info = try await eventually("node \(index + 1) shows the new content") {
                    let info = try await client.document(uploaded.id)
                    return info.state == .clean && info.contentEtag == uploaded.contentEtag ? info : nil
                }
                #expect(info.metadata.title != "edited again", "node \(index + 1)")
            }
            let events = try await recorder.waitForEvents(4)
            #expect(events.map(\.type) == [.created, .conflict, .resolved, .changed], "\(events.map(\.type))")
            let versions = events.compactMap(\.version)
            #expect(versions.count == 4 && versions == versions.sorted() && Set(versions).count == 4, "\(versions)")
            // The owner is the node that made the document; no node took anything over.
            let nodes = try await cluster.clients[2].nodes()
            let owner = nodes.nodes.first { $0.address.hasSuffix(":\(cluster.nodes[0].port)") }
            #expect(owner?.ownedDocuments == 1, "\(nodes)")
        } catch {
            await cluster.shutdown()
            throw error
        }
        await cluster.shutdown()
    }

    @Test("every document uploaded through node 1 is node 1's: node 2, which sees each file appear in the shared store, claims none of them first")
    func makerOwnsWhatItMakes() async throws {
        let cluster = try await Cluster(count: 2)
        let pdf = try Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture("one-page.pdf")))
        do {
            let maker = cluster.clients[0]
            let made = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        for _ in 0..<40 { _ = try await maker.upload(pdf: pdf) }
                        return 40
                    }
                }
                return try await group.reduce(0, +)
            }
            let nodes = try await cluster.clients[1].nodes().nodes
            let owned = Dictionary(
                nodes.map { ($0.address.hasSuffix(":\(cluster.nodes[0].port)") ? "maker" : "other", $0.ownedDocuments) },
                uniquingKeysWith: +)
            #expect(owned == ["maker": made, "other": 0], "\(nodes)")
        } catch {
            await cluster.shutdown()
            throw error
        }
        await cluster.shutdown()
    }

    @Test("a stalled owner (SIGSTOP): an edit through another node is answered once the owner stops heartbeating, not after the forward's timeout; resumed, the old owner forwards instead of changing its stale copy")
    func stalledOwner() async throws {
        let cluster = try await Cluster()
        let pdf = try Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture("one-page.pdf")))
        do {
            let uploaded = try await cluster.clients[0].upload(pdf: pdf)  // node 1 owns it
            // The survivors must have been healthy for the liveness window before they may take anything over.
            try await Task.sleep(for: .seconds(5))  // the subject: the 5 s window, not a race
            kill(cluster.nodes[0].process.pid, SIGSTOP)
            let stopped = ContinuousClock.now
            let edit = try await Self.send(
                "PATCH", "/documents/\(uploaded.id)/metadata", node: cluster.nodes[1].url,
                body: Data("{\"title\":\"while stalled\"}".utf8), contentType: "application/merge-patch+json")
            let waited = ContinuousClock.now - stopped
            kill(cluster.nodes[0].process.pid, SIGCONT)
            #expect(edit.status == 200, "\(String(decoding: edit.body, as: UTF8.self))")
            // Within the liveness window and a check, not the forward's 30 s timeout.
            #expect(waited < .seconds(12), "answered after \(waited)")
            // Node 1, resumed, no longer owns the document: an edit through it goes to the new owner, and every
            // node shows both edits.
            let resumed = try await eventually("node 1 answers again") {
                try? await Self.send(
                    "PATCH", "/documents/\(uploaded.id)/metadata", node: cluster.nodes[0].url,
                    body: Data("{\"author\":\"after resuming\"}".utf8), contentType: "application/merge-patch+json")
            }
            #expect(resumed.status == 200, "\(String(decoding: resumed.body, as: UTF8.self))")
            for (index, client) in cluster.clients.enumerated() {
                let info = try await client.document(uploaded.id)
                #expect(
                    info.metadata.title == "while stalled" && info.metadata.author == "after resuming",
                    "node \(index + 1): \(info.metadata)")
            }
        } catch {
            kill(cluster.nodes[0].process.pid, SIGCONT)
            await cluster.shutdown()
            throw error
        }
        await cluster.shutdown()
    }

    @Test("the owner killed with SIGKILL during a write storm: the others go on, take its documents over within seconds, and the log has no gap and no duplicate")
    func takeoverDuringWriteStorm() async throws {
        let cluster = try await Cluster()
        let pdf = try Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture("one-page.pdf")))
        do {
            var made: [String] = []
            for _ in 0..<4 { made.append(try await cluster.clients[0].upload(pdf: pdf).id) }
            let owned = made
            let survivors = [cluster.clients[1], cluster.clients[2]]
            let urls = [cluster.nodes[1].url, cluster.nodes[2].url]
            let stop = ManagedFlag()
            // Uploads, edits and saves of node 1's documents through nodes 2 and 3, until told to stop.
            let storm = Task { () -> (uploads: [String], edits: Int, refused: Int) in
                var uploads: [String] = []
                var edits = 0
                var refused = 0
                var round = 0
                while !stop.isSet {
                    let node = round % 2
                    if let info = try? await survivors[node].upload(pdf: pdf) { uploads.append(info.id) }
                    let id = owned[round % owned.count]
                    let patch = try? await Self.send(
                        "PATCH", "/documents/\(id)/metadata", node: urls[node],
                        body: Data("{\"title\":\"round \(round)\"}".utf8), contentType: "application/merge-patch+json")
                    if patch?.status == 200 { edits += 1 } else { refused += 1 }
                    _ = try? await Self.send("POST", "/documents/\(id)/save", node: urls[1 - node])
                    round += 1
                }
                return (uploads, edits, refused)
            }
            try await Task.sleep(for: .milliseconds(800))
            kill(cluster.nodes[0].process.pid, SIGKILL)
            let killed = ContinuousClock.now
            _ = cluster.nodes[0].process.waitForExit(timeout: 10)
            // Every document node 1 owned is taken over: an edit through either survivor is answered again.
            for id in owned {
                _ = try await eventually("document \(id) edited again after its owner died", timeout: .seconds(15)) {
                    let answer = try? await Self.send(
                        "PATCH", "/documents/\(id)/metadata", node: urls[0],
                        body: Data("{\"author\":\"after\"}".utf8), contentType: "application/merge-patch+json")
                    return answer?.status == 200 ? true : nil
                }
            }
            let takeover = ContinuousClock.now - killed
            try await Task.sleep(for: .milliseconds(500))
            stop.set()
            let result = await storm.value
            #expect(result.edits > 0 && result.uploads.count > 0, "\(result)")
            // Taken over well within the liveness window plus a sweep (5 s + 1 s), with slack for this machine.
            #expect(takeover < .seconds(12), "taken over after \(takeover)")
            let nodes = try await survivors[0].nodes().nodes
            let dead = nodes.first { $0.address.hasSuffix(":\(cluster.nodes[0].port)") }
            #expect(dead?.live == false && dead?.ownedDocuments == 0, "\(nodes)")
            let listed = Set(try await survivors[1].documents().collect().map(\.id))
            #expect(nodes.map(\.ownedDocuments).reduce(0, +) == listed.count, "\(nodes)")
            // The log: ids from 1 without a gap, one `created` per document, every accepted upload in it. A marker
            // made last closes it (ids commit in order).
            let marker = try await survivors[0].upload(pdf: pdf)
            let replay = EventRecorder(client: survivors[1], after: 0)
            defer { replay.cancel() }
            let events = try await eventually("the marker's created event in the replay") {
                replay.events.contains { $0.document == marker.id } ? replay.events : nil
            }
            let ids = events.map(\.id)
            #expect(ids == Array(1...Int64(ids.count)), "\(ids)")
            let created = events.filter { $0.type == .created }.map(\.document)
            #expect(created.count == Set(created).count)
            #expect(Set(owned + result.uploads).isSubset(of: Set(created)))
            #expect(Set(created) == listed.union([marker.id]))
            let metrics = try await Self.send("GET", "/metrics", node: urls[0]).body
                + (try await Self.send("GET", "/metrics", node: urls[1]).body)
            let takeovers = String(decoding: metrics, as: UTF8.self).split(separator: "\n")
                .filter { $0.hasPrefix("quire_cluster_takeovers_total ") }
                .compactMap { Double($0.split(separator: " ").last ?? "") }
            #expect(takeovers.count == 2 && takeovers.reduce(0, +) >= Double(owned.count), "\(takeovers)")
        } catch {
            await cluster.shutdown()
            throw error
        }
        await cluster.shutdown()
    }
}

/// A flag set once, read from other tasks.
final class ManagedFlag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
