@testable import DocumentStore
@testable import StoreCore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import PDFWorkerWire
import QuireTestSupport
import HummingbirdTesting
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A PDF whose one page draws a form of `rectangles` tiny filled rectangles `draws` times: cheap to parse,
/// slow to render (the kind of page that once held every worker thread for seconds).
enum SlowPDF {
    static func data(rectangles: Int = 100_000, draws: Int = 60) -> Data {
        let form = String(repeating: "0 0 1 1 re f\n", count: rectangles)
        let page = String(repeating: "/F1 Do\n", count: draws)
        let objects = [
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Resources << /XObject << /F1 5 0 R >> >> "
                + "/Contents 4 0 R >>",
            "<< /Length \(page.utf8.count) >>\nstream\n\(page)endstream",
            "<< /Type /XObject /Subtype /Form /BBox [0 0 200 200] /Length \(form.utf8.count) >>\nstream\n\(form)"
                + "endstream",
        ]
        var pdf = "%PDF-1.4\n"
        var offsets: [Int] = []
        for (index, object) in objects.enumerated() {
            offsets.append(pdf.utf8.count)
            pdf += "\(index + 1) 0 obj\n\(object)\nendobj\n"
        }
        let xref = pdf.utf8.count
        pdf += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for offset in offsets { pdf += String(format: "%010d 00000 n \n", offset) }
        pdf += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        return Data(pdf.utf8)
    }
}

/// Pages are rendered and their text extracted in worker processes, with a deadline, fairly between documents.
@Suite("PDF worker processes")
struct PDFWorkerTests {
    static func upload(_ client: any TestClientProtocol, _ bytes: Data) async throws -> String {
        let response = try await client.execute(
            uri: "/documents", method: .post, headers: [.contentType: "application/pdf"], body: ByteBuffer(bytes: bytes)
        )
        #expect(response.status == .created)
        return try #require(try jsonObject(response)["id"] as? String)
    }

    @Test("A crafted slow page gets 422 at its deadline while another document's text keeps being served")
    func slowPageBesideNormalDocument() async throws {
        let service = try DocumentService(pdfDeadline: .seconds(2))
        try await service.run { client in
            let slow = try await Self.upload(client, SlowPDF.data())
            let normal = try await Self.upload(client, try Fixture.data("hundred-pages.pdf"))
            // Four renders of the slow page at once, and meanwhile the normal document's text, page after page.
            let rendersDone = Mutex(false)
            let renders = Task { () async throws -> [(HTTPResponse.Status, String)] in
                defer { rendersDone.withLock { $0 = true } }
                return try await withThrowingTaskGroup(of: (HTTPResponse.Status, String).self) { group in
                    for _ in 0..<4 {
                        group.addTask {
                            let response = try await client.execute(
                                uri: "/documents/\(slow)/pages/1/image?dpi=72", method: .get)
                            return (response.status, String(buffer: response.body))
                        }
                    }
                    var outcomes: [(HTTPResponse.Status, String)] = []
                    for try await outcome in group { outcomes.append(outcome) }
                    return outcomes
                }
            }
            // The renders are in: one runs, three wait their turn behind it (one request per document at a time).
            let submitted = ContinuousClock.now + .seconds(10)
            while service.library.workers.queuedCount < 3, ContinuousClock.now < submitted {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(service.library.workers.queuedCount == 3)
            var served = 0
            for page in 1...20 {
                let text = try await client.execute(uri: "/documents/\(normal)/pages/\(page)/text", method: .get)
                #expect(text.status == .ok)
                served += 1
            }
            // All 20 were answered while the slow renders were still held (they end at their 2 s deadline).
            #expect(served == 20)
            let stillRendering = rendersDone.withLock { !$0 }
            #expect(stillRendering)
            let outcomes = try await renders.value
            #expect(outcomes.count == 4)
            #expect(outcomes.contains { $0.0 == .unprocessableContent && $0.1.contains("/problems/pdf-work-too-long") })
            #expect(outcomes.allSatisfy { $0.0 == .unprocessableContent || $0.0 == .serviceUnavailable })
            // The killed worker was replaced: rendering goes on.
            let image = try await client.execute(uri: "/documents/\(normal)/pages/1/image?dpi=30", method: .get)
            #expect(image.status == .ok)
            let metrics = try await client.execute(uri: "/metrics", method: .get)
            #expect(String(buffer: metrics.body).contains("quire_pdf_deadlines_missed_total"))
        }
    }

    @Test("Four crafted documents on two workers: a normal document's text is served while the crafted ones wait")
    func craftedDocumentsDoNotStarveOthers() async throws {
        let service = try DocumentService(pdfDeadline: .seconds(3), pdfWorkers: 2)
        try await service.run { client in
            var uploaded: [String] = []
            for _ in 0..<4 { uploaded.append(try await Self.upload(client, SlowPDF.data())) }
            let crafted = uploaded
            let normal = try await Self.upload(client, try Fixture.data("hundred-pages.pdf"))
            // Each crafted document's text asked for in a loop, one request at a time (its page takes longer than
            // the deadline: each request holds a worker 3 s, then 422).
            final class Progress: Sendable {
                let done = Mutex(0)
                let stop = Mutex(false)
            }
            let progress = Progress()
            let loops = Task {
                await withTaskGroup(of: Void.self) { group in
                    for document in crafted {
                        group.addTask {
                            while !progress.stop.withLock({ $0 }) {
                                _ = try? await client.execute(uri: "/documents/\(document)/pages/1/text", method: .get)
                                progress.done.withLock { $0 += 1 }
                            }
                        }
                    }
                }
            }
            defer { progress.stop.withLock { $0 = true } }
            // Each crafted document has had a slow run: all four wait behind the others now.
            let workers = service.library.workers
            let warmed = ContinuousClock.now + .seconds(40)
            while !crafted.allSatisfy(workers.isHeavy), ContinuousClock.now < warmed {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(crafted.allSatisfy(workers.isHeavy))
            // The normal document's text, page after page: each takes the worker the crafted ones may not hold.
            // Before, every one of them waited for a crafted request to end (about one per answer).
            let before = progress.done.withLock { $0 }
            for page in 1...20 {
                let text = try await client.execute(uri: "/documents/\(normal)/pages/\(page)/text", method: .get)
                #expect(text.status == .ok)
            }
            let endedMeanwhile = progress.done.withLock { $0 } - before
            #expect(endedMeanwhile <= 8, "\(endedMeanwhile) crafted requests ended while 20 normal ones were served")
            progress.stop.withLock { $0 = true }
            loops.cancel()
            _ = await loops.value
        }
    }

    @Test(
        "A worker killed mid-render fails that request alone with 422; the same document's next request succeeds",
        arguments: [SIGSEGV, SIGKILL])
    func workerCrash(signal: Int32) async throws {
        let service = try DocumentService(pdfDeadline: .seconds(30), pdfWorkers: 2)
        try await service.run { client in
            // About a second to render (and as long to extract its no text): long enough to be killed mid-render.
            let slow = try await Self.upload(client, SlowPDF.data(rectangles: 20_000))
            let normal = try await Self.upload(client, try Fixture.data("hundred-pages.pdf"))
            let render = Task {
                try await client.execute(uri: "/documents/\(slow)/pages/1/image?dpi=72", method: .get)
            }
            // Wait until the render holds a worker, then end that worker as a poppler crash (or the OOM killer)
            // would.
            var worker: pid_t?
            let deadline = ContinuousClock.now + .seconds(10)
            while worker == nil, ContinuousClock.now < deadline {
                worker = service.library.workers.busyWorkerProcessIDs.first
                if worker == nil { try await Task.sleep(for: .milliseconds(10)) }
            }
            let pid = try #require(worker)
            // Meanwhile the other document is served by the other worker, before, during and after the crash.
            let others = Task {
                var statuses: [HTTPResponse.Status] = []
                for page in 1...20 {
                    statuses.append(
                        try await client.execute(uri: "/documents/\(normal)/pages/\(page)/text", method: .get).status)
                }
                return statuses
            }
            try await Task.sleep(for: .milliseconds(100))  // let it render for a while
            #expect(kill(pid, signal) == 0)
            let response = try await render.value
            #expect(response.status == .unprocessableContent)
            #expect(String(buffer: response.body).contains("/problems/pdf-worker-crashed"))
            #expect(String(buffer: response.body).contains("signal \(signal)"))
            #expect(try await others.value.allSatisfy { $0 == .ok })
            // The same document again: a new worker serves it.
            let text = try await client.execute(uri: "/documents/\(slow)/pages/1/text", method: .get)
            #expect(text.status == .ok, "\(String(buffer: text.body))")
            let health = try await client.execute(uri: "/health", method: .get)
            #expect(health.status == .ok)
            let metrics = try await client.execute(uri: "/metrics", method: .get)
            #expect(String(buffer: metrics.body).contains("quire_pdf_worker_restarts_total 1"))
        }
    }

    @Test("A render that needs more memory than a worker may map fails cleanly (422); the next one is served")
    func memoryLimit() async throws {
        // 192 MiB of address space (an idle worker maps about 100): a 600-dpi render of a letter page needs
        // 135 MB of pixels.
        let service = try DocumentService(pdfWorkers: 1, pdfMemoryMiB: 192)
        try await service.run { client in
            let id = try await Self.upload(client, try Fixture.data("one-page.pdf"))
            let big = try await client.execute(uri: "/documents/\(id)/pages/1/image?dpi=600", method: .get)
            #expect(big.status == .unprocessableContent, "\(String(buffer: big.body))")
            #expect(String(buffer: big.body).contains("/problems/"))
            let small = try await client.execute(uri: "/documents/\(id)/pages/1/image?dpi=72", method: .get)
            #expect(small.status == .ok)
            #expect(small.headers[.contentType] == "image/png")
        }
    }
}

/// New content is opened in a worker before the service opens it.
@Suite("PDF checks of new content")
struct PDFVettingTests {
    @Test("An upload is opened by a worker first: without one it is refused (503) and nothing is kept")
    func uploadVettedInWorker() async throws {
        let service = try DocumentService(pdfWorkerExecutable: "/nonexistent/quire-pdf")
        try await service.run { client in
            let response = try await client.upload("one-page.pdf")
            #expect(response.status == .serviceUnavailable)
            #expect(response.headers[.retryAfter] != nil)
            #expect(String(buffer: response.body).contains("opening the uploaded PDF"))
            let files = try FileManager.default.contentsOfDirectory(
                atPath: service.configuration.storeDirectory.appendingPathComponent("files").path)
            #expect(files.isEmpty)
            #expect(try await service.catalog.documents().isEmpty)
        }
    }

    @Test("Not a PDF, or a password missing, is found by the worker: 422 and 401 as before")
    func vettingAnswers() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let junk = try await client.execute(
                uri: "/documents", method: .post, headers: [.contentType: "application/pdf"],
                body: ByteBuffer(string: "not a pdf at all"))
            #expect(junk.status == .unprocessableContent)
            let locked = try await client.upload("encrypted-aes256.pdf")
            #expect(locked.status == .unauthorized)
            let opened = try await client.upload("encrypted-aes256.pdf", password: "userpw")
            #expect(opened.status == .created)
        }
    }
}

/// Files that other programs rewrite are opened by a worker when the service reloads them.
@Suite("PDF checks of rewritten files")
struct PDFReloadVettingTests {
    @Test("A registered file rewritten with a PDF no worker opens in time becomes damaged")
    func rewrittenFileVetted() async throws {
        let stalling = try StallingWorker()
        defer { stalling.remove() }
        let service = try DocumentService(pdfDeadline: .seconds(1), pdfWorkers: 1, pdfWorkerExecutable: stalling.script)
        try await service.run { client in
            let (id, _, url) = try await CoherenceTests.registered(service, client)
            // From now on a new worker stalls; end the one running (the next request sees it gone).
            try stalling.stallFromNow()
            for pid in service.library.workers.workerProcessIDs { kill(pid, SIGKILL) }
            _ = try await client.execute(uri: "/documents/\(id)/pages/1/text", method: .get)
            let after = try await service.catalog.lastEventID()
            try Fixture.data("metadata.pdf").write(to: url)
            let damaged = try #require(try await service.waitForEvent(.damaged, of: id, after: after))
            #expect(damaged.extra["reason"]?.contains("took longer than") == true, "\(damaged.extra)")
            let info = try jsonObject(try await client.execute(uri: "/documents/\(id)", method: .get))
            #expect(info["state"] as? String == "damaged")
        }
    }
}

/// The scheduler alone: events in, actions out.
@Suite("PDF work scheduler")
struct PDFWorkSchedulerTests {
    @Test("Documents take turns; one document never holds more than one worker")
    func fairness() {
        let t0 = ContinuousClock.now
        var scheduler = PDFWorkScheduler(slots: 2, maximumQueuedPerKey: 8)
        #expect(scheduler.submitted(1, key: "slow", now: t0) == [.start(1, slot: 0)])
        #expect(scheduler.submitted(2, key: "slow", now: t0) == [])
        #expect(scheduler.submitted(3, key: "slow", now: t0) == [])
        #expect(scheduler.submitted(4, key: "other", now: t0) == [.start(4, slot: 1)])
        #expect(scheduler.submitted(5, key: "other", now: t0) == [])
        #expect(scheduler.submitted(6, key: "third", now: t0) == [])
        // "other" finishes: the next turn is "slow"'s (still running: skipped), then "other", then "third".
        #expect(scheduler.finished(slot: 1, key: "other", now: t0) == [.start(5, slot: 1)])
        #expect(scheduler.finished(slot: 1, key: "other", now: t0) == [.start(6, slot: 1)])
        #expect(scheduler.finished(slot: 0, key: "slow", now: t0) == [.start(2, slot: 0)])
        #expect(scheduler.queuedCount == 1)
    }

    @Test("An idle worker that served the same document takes its next request; else the one idle the shortest time")
    func warmWorkers() {
        let t0 = ContinuousClock.now
        var scheduler = PDFWorkScheduler(slots: 3, maximumQueuedPerKey: 8)
        #expect(scheduler.submitted(1, key: "a", now: t0) == [.start(1, slot: 0)])
        #expect(scheduler.finished(slot: 0, key: "a", now: t0) == [])
        // One document's requests one after another: the same warm worker, not the next one round the slots.
        #expect(scheduler.submitted(2, key: "a", now: t0) == [.start(2, slot: 0)])
        #expect(scheduler.finished(slot: 0, key: "a", now: t0) == [])
        #expect(scheduler.submitted(3, key: "b", now: t0) == [.start(3, slot: 0)])  // idle the shortest time
        // Slot 0 serves "b" now; of the others, slot 1 was idle the shortest time (slot 2 never worked).
        #expect(scheduler.submitted(4, key: "a", now: t0) == [.start(4, slot: 1)])
        #expect(scheduler.finished(slot: 1, key: "a", now: t0) == [])
        #expect(scheduler.finished(slot: 0, key: "b", now: t0) == [])
        // Slot 0 is idle the shortest time, but slot 1 served "a" last.
        #expect(scheduler.submitted(5, key: "a", now: t0) == [.start(5, slot: 1)])
        #expect(scheduler.submitted(6, key: "b", now: t0) == [.start(6, slot: 0)])
    }

    @Test("A full queue rejects at once; a withdrawn request never starts; bad events change nothing")
    func boundsAndWithdrawal() {
        let t0 = ContinuousClock.now
        var scheduler = PDFWorkScheduler(slots: 1, maximumQueuedPerKey: 2)
        #expect(scheduler.submitted(1, key: "a", now: t0) == [.start(1, slot: 0)])
        #expect(scheduler.submitted(2, key: "a", now: t0) == [])
        #expect(scheduler.submitted(3, key: "a", now: t0) == [])
        #expect(scheduler.submitted(4, key: "a", now: t0) == [.rejectQueueFull(4)])
        #expect(scheduler.submitted(2, key: "b", now: t0) == [.rejectQueueFull(2)])  // an id given twice
        let first = scheduler.withdrawn(2)
        let again = scheduler.withdrawn(2)
        let running = scheduler.withdrawn(1)  // running, not waiting
        #expect(first && !again && !running)
        #expect(scheduler.finished(slot: 0, key: "zzz", now: t0) == [])  // nothing of zzz runs
        #expect(scheduler.finished(slot: 0, key: "a", now: t0) == [.start(3, slot: 0)])
        #expect(scheduler.finished(slot: 0, key: "a", now: t0) == [])
        #expect(scheduler.finished(slot: 0, key: "a", now: t0) == [])  // the slot is idle already
        #expect(scheduler.queuedCount == 0)
    }

    @Test("Documents whose requests run long wait behind the others and never hold the last worker")
    func heavyDocumentsWaitBehind() {
        let t0 = ContinuousClock.now
        func at(_ ms: Int) -> ContinuousClock.Instant { t0 + .milliseconds(ms) }
        var scheduler = PDFWorkScheduler(slots: 2, maximumQueuedPerKey: 8, slowRun: .seconds(1), penalty: .seconds(60))
        #expect(scheduler.heavyCapacity == 1)
        // Four crafted documents, each asking again as soon as it is answered; nothing is known of them yet.
        #expect(scheduler.submitted(1, key: "c1", now: at(0)) == [.start(1, slot: 0)])
        #expect(scheduler.submitted(2, key: "c2", now: at(0)) == [.start(2, slot: 1)])
        #expect(scheduler.submitted(3, key: "c3", now: at(1)) == [])
        #expect(scheduler.submitted(4, key: "c4", now: at(1)) == [])
        #expect(scheduler.submitted(5, key: "c1", now: at(1)) == [])
        // A normal document's request arrives while both run; both have run past the slow mark by the time one
        // ends. c3 and c4 are not known to be heavy: they take their turns before the normal request, which came
        // after them.
        #expect(scheduler.submitted(10, key: "normal", now: at(500)) == [])
        #expect(scheduler.finished(slot: 0, key: "c1", now: at(5_300)) == [.start(3, slot: 0)])
        #expect(scheduler.isHeavy("c1", at: at(5_300)) && scheduler.isHeavy("c2", at: at(5_300)))
        #expect(scheduler.submitted(6, key: "c2", now: at(5_300)) == [])
        #expect(scheduler.finished(slot: 1, key: "c2", now: at(5_400)) == [.start(4, slot: 1)])
        // c3's run passed the slow mark, and so did c4's: once c3 ends, every crafted document is heavy, and the
        // normal request goes first although c1 is before it in turn.
        #expect(scheduler.finished(slot: 0, key: "c3", now: at(10_000)) == [.start(10, slot: 0)])
        #expect(scheduler.submitted(7, key: "c3", now: at(10_000)) == [])
        // c4 ends: one heavy request may run (the next heavy document in turn), beside the normal one.
        #expect(scheduler.finished(slot: 1, key: "c4", now: at(10_500)) == [.start(6, slot: 1)])
        #expect(scheduler.submitted(8, key: "c4", now: at(10_500)) == [])
        #expect(scheduler.heavyRunning == 1)
        // The normal document's requests, one after another, take the free worker each time; the heavy ones wait.
        var served = 0
        for index in 0..<20 {
            let job = UInt64(100 + index)
            let now = at(10_600 + index * 5)
            let actions = scheduler.finished(slot: 0, key: "normal", now: now)
            #expect(actions.isEmpty)  // heavy documents never take the last worker
            #expect(scheduler.submitted(job, key: "normal", now: now) == [.start(job, slot: 0)])
            served += 1
        }
        #expect(served == 20)
        #expect(scheduler.queued(for: "c1") + scheduler.queued(for: "c2") + scheduler.queued(for: "c3") + scheduler.queued(for: "c4") == 3)
        // The heavy run ends: the next heavy document in turn takes its worker.
        #expect(scheduler.finished(slot: 1, key: "c2", now: at(10_700)) == [.start(5, slot: 1)])
    }

    @Test("A document is heavy for the penalty after its last slow request, then takes turns as any other")
    func penaltyExpires() {
        let t0 = ContinuousClock.now
        func at(_ seconds: Int) -> ContinuousClock.Instant { t0 + .seconds(seconds) }
        var scheduler = PDFWorkScheduler(slots: 2, maximumQueuedPerKey: 8, slowRun: .seconds(1), penalty: .seconds(60))
        // Two documents' requests run 2 s each: both are heavy for 60 s after.
        #expect(scheduler.submitted(1, key: "a", now: at(0)) == [.start(1, slot: 0)])
        #expect(scheduler.submitted(2, key: "b", now: at(0)) == [.start(2, slot: 1)])
        #expect(scheduler.finished(slot: 0, key: "a", now: at(2)) == [])
        #expect(scheduler.finished(slot: 1, key: "b", now: at(2)) == [])
        #expect(scheduler.isHeavy("a", at: at(61)) && scheduler.isHeavy("b", at: at(61)))
        #expect(!scheduler.isHeavy("a", at: at(62)))
        // Fast runs never make a document heavy.
        #expect(scheduler.submitted(3, key: "fast", now: at(3)) == [.start(3, slot: 1)])
        #expect(scheduler.finished(slot: 1, key: "fast", now: at(3) + .milliseconds(999)) == [])
        #expect(!scheduler.isHeavy("fast", at: at(4)))
        // Both workers idle, both heavy documents ask: only one runs, the other waits for it.
        #expect(scheduler.submitted(4, key: "a", now: at(10)) == [.start(4, slot: 0)])
        #expect(scheduler.submitted(5, key: "b", now: at(10)) == [])
        #expect(scheduler.finished(slot: 0, key: "a", now: at(10) + .milliseconds(10)) == [.start(5, slot: 0)])
        #expect(scheduler.finished(slot: 0, key: "b", now: at(10) + .milliseconds(20)) == [])
        // After the penalty both run at once again.
        #expect(scheduler.submitted(6, key: "a", now: at(80)) == [.start(6, slot: 0)])
        #expect(scheduler.submitted(7, key: "b", now: at(80)) == [.start(7, slot: 1)])
    }

    @Test("Random histories: a free worker never idles while a light request waits; heavy starts stay within capacity")
    func randomHistories() {
        var generator = SeededGenerator(seed: 29)
        for slots in 1...5 {
            let t0 = ContinuousClock.now
            var now = t0
            var scheduler = PDFWorkScheduler(slots: slots, maximumQueuedPerKey: 4, slowRun: .seconds(1), penalty: .seconds(30))
            var running: [Int: (key: String, job: UInt64)] = [:]
            var waiting: [UInt64: String] = [:]
            var next: UInt64 = 1
            func apply(_ actions: [PDFWorkScheduler.Action]) {
                for action in actions {
                    switch action {
                    case .start(let job, let slot):
                        #expect(running[slot] == nil, "slot \(slot) started twice")
                        let key = waiting.removeValue(forKey: job)
                        #expect(key != nil, "job \(job) started without waiting")
                        // A heavy document's request starts only while fewer than the capacity of heavy ones run
                        // (a light one that runs long becomes heavy where it runs: nothing preempts it).
                        if let key, scheduler.isHeavy(key, at: now) {
                            let heavyRunning = running.values.filter { scheduler.isHeavy($0.key, at: now) }.count
                            #expect(heavyRunning < scheduler.heavyCapacity, "a heavy request started beside \(heavyRunning)")
                        }
                        running[slot] = (key ?? "", job)
                    case .rejectQueueFull(let job):
                        waiting[job] = nil
                    }
                }
            }
            for _ in 0..<3_000 {
                now = now + .milliseconds(Int.random(in: 0...400, using: &generator))
                if Bool.random(using: &generator) || running.isEmpty {
                    let key = "d\(Int.random(in: 0..<8, using: &generator))"
                    waiting[next] = key
                    apply(scheduler.submitted(next, key: key, now: now))
                    next += 1
                } else if let slot = running.keys.sorted().randomElement(using: &generator), let run = running[slot] {
                    running[slot] = nil
                    apply(scheduler.finished(slot: slot, key: run.key, now: now))
                }
                if Int.random(in: 0..<10, using: &generator) == 0, let job = waiting.keys.sorted().randomElement(using: &generator) {
                    if scheduler.withdrawn(job) { waiting[job] = nil }
                }
                // Invariants after every event.
                #expect(running.count <= slots)
                let busyKeys = Set(running.values.map(\.key))
                let lightWaiting = waiting.values.contains { !scheduler.isHeavy($0, at: now) && !busyKeys.contains($0) }
                if running.count < slots { #expect(!lightWaiting, "a light request waits beside an idle worker") }
            }
        }
    }
}

/// Edits live in the service as a log; renders of an edited document and its saves run in workers, with the
/// deadline.
@Suite("Edits and saves in PDF workers")
struct PDFWorkerEditTests {
    @Test("An unsaved highlight shows in a worker's render; the saved file carries it and renders the same")
    func unsavedEditsRendered() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let (id, tag, url) = try await CoherenceTests.registered(service, client)
            let before = try await client.execute(uri: "/documents/\(id)/pages/1/image?dpi=36", method: .get)
            #expect(before.status == .ok)
            let annotated = try await client.send(
                "/documents/\(id)/annotations", .post,
                json: #"{"kind": "highlight", "page": 1, "rect": {"x": 50, "y": 50, "width": 400, "height": 300}}"#)
            #expect(annotated.status == .ok)
            #expect(annotated.headers[.eTag] != tag)
            let edited = try await client.execute(uri: "/documents/\(id)/pages/1/image?dpi=36", method: .get)
            #expect(edited.status == .ok)
            #expect(edited.body != before.body, "the unsaved highlight is not in the render")
            let saved = try await client.execute(
                uri: "/documents/\(id)/save", method: .post, headers: [.ifMatch: try #require(annotated.headers[.eTag])])
            #expect(saved.status == .ok)
            let onDisk = try Data(contentsOf: url)
            #expect(String(decoding: onDisk, as: UTF8.self).contains("/Highlight"))
            let after = try await client.execute(uri: "/documents/\(id)/pages/1/image?dpi=36", method: .get)
            #expect(after.body == edited.body)
        }
    }

    @Test("A save whose worker misses its deadline fails with 422, leaves the file and the edits; then it saves")
    func saveDeadline() async throws {
        let stalling = try StallingWorker()
        defer { stalling.remove() }
        let service = try DocumentService(pdfDeadline: .seconds(1), pdfWorkers: 1, pdfWorkerExecutable: stalling.script)
        try await service.run { client in
            let (id, _, url) = try await CoherenceTests.registered(service, client)
            let original = try Data(contentsOf: url)
            let patched = try await client.send(
                "/documents/\(id)/metadata", .patch, json: #"{"title": "Saved by a worker"}"#,
                headers: [.contentType: "application/merge-patch+json"])
            #expect(patched.status == .ok)
            let tag = try #require(patched.headers[.eTag])
            try stalling.stallFromNow()
            for pid in service.library.workers.workerProcessIDs { kill(pid, SIGKILL) }
            // The next request finds that worker gone; the one after it gets a new worker, which stalls.
            _ = try await client.execute(uri: "/documents/\(id)/pages/1/text", method: .get)
            let started = ContinuousClock.now
            let stalled = try await client.execute(
                uri: "/documents/\(id)/save", method: .post, headers: [.ifMatch: tag])
            #expect(stalled.status == .unprocessableContent)
            #expect(
                try jsonObject(stalled)["type"] as? String == "/problems/pdf-work-too-long",
                "\(String(buffer: stalled.body))")
            #expect(ContinuousClock.now - started < .seconds(10))
            #expect(try Data(contentsOf: url) == original)
            let info = try jsonObject(try await client.execute(uri: "/documents/\(id)", method: .get))
            #expect(info["state"] as? String == "dirty")
            try stalling.serveAgain()
            let saved = try await client.execute(uri: "/documents/\(id)/save", method: .post, headers: [.ifMatch: tag])
            #expect(saved.status == .ok, "\(String(buffer: saved.body))")
            // poppler writes Info strings as UTF-16BE in hexadecimal.
            let title = "<feff" + "Saved by a worker".utf16.map { String(format: "%04x", $0) }.joined() + ">"
            #expect(String(decoding: try Data(contentsOf: url), as: UTF8.self).contains("/Title " + title))
        }
    }
}

/// Workers die with the service, not with whichever thread happened to start them.
@Suite("PDF worker lifetime")
struct PDFWorkerLifetimeTests {
    /// Runs `body` on a new POSIX thread and returns once that thread has ended (joined).
    static func onThreadThatEnds(_ body: @escaping @Sendable () -> Void) {
        final class Body: @unchecked Sendable {
            let run: @Sendable () -> Void
            init(_ run: @escaping @Sendable () -> Void) { self.run = run }
        }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        let created = pthread_create(
            &thread, nil,
            { context in
                Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
                return nil
            }, context)
        #expect(created == 0)
        pthread_join(thread, nil)
    }

    /// The state letter of process `pid` (`Z` for a zombie), from `/proc/PID/stat`.
    static func state(of pid: pid_t) -> Character? {
        guard let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/stat"),
            let data = try? handle.readToEnd()
        else { return nil }
        try? handle.close()
        let text = String(decoding: data, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(close, offsetBy: 2)...].first
    }

    @Test("A worker's refusal of a bad argument reaches the problem naming the request's parameter, or none")
    func refusalNamesTheRightParameter() async throws {
        let pool = PDFWorkerPool(
            settings: .init(executable: PDFWorkerPool.defaultExecutable(), workers: 1, deadline: .seconds(10)),
            metrics: StoreMetrics(), logger: Logger(label: "quire.test"))
        defer { pool.shutdown() }
        let pdf = PDFWorkPayload(try Fixture.data("one-page.pdf"))
        // The worker itself refuses a resolution it cannot render: the render's parameter is "dpi".
        var render = PDFWorkerRequest(operation: .renderPNG, pageIndex: 0)
        render.dpi = 1_000_000
        let renderError = await #expect(throws: PDFWorkError.self) { try await pool.run(render, pdf: pdf, key: "a") }
        let renderProblem = ProblemDetails(
            StoreError.pdfWork(try #require(renderError), work: "rendering page 1", parameter: "dpi"))
        #expect(renderProblem.status == .badRequest)
        #expect(renderProblem.extensionMembers["parameter"] == "dpi")
        // Edits too large to send refuse a save, which has no "dpi": no parameter is named (it used to be "dpi").
        let huge = PDFWorkerEdit.addAnnotation(
            kind: 1, page: 0, x: 1, y: 1, width: 10, height: 10,
            contents: String(repeating: "x", count: PDFWorkerMessage.maximumEditsLength))
        let saveError = await #expect(throws: PDFWorkError.self) {
            try await pool.run(PDFWorkerRequest(operation: .save, pageIndex: 0), pdf: pdf, edits: [huge], key: "a")
        }
        let saveProblem = ProblemDetails(StoreError.pdfWork(try #require(saveError), work: "saving document a"))
        #expect(saveProblem.status == .badRequest)
        #expect(saveProblem.extensionMembers["parameter"] == nil)
        #expect(saveProblem.detail?.contains("save them first") == true)
    }

    @Test("A worker is told its idle polling window (workers.idlePollMicroseconds), and serves with none at all")
    func workerTakesItsPollingWindow() throws {
        for window in [Duration.zero, .microseconds(750)] {
            let pool = PDFWorkerPool(
                settings: .init(
                    executable: PDFWorkerPool.defaultExecutable(), workers: 1, deadline: .seconds(10), replyPoll: window,
                    idlePoll: window),
                metrics: StoreMetrics(), logger: Logger(label: "quire.test"))
            defer { pool.shutdown() }
            let pdf = PDFWorkPayload(try Fixture.data("one-page.pdf"))
            let text = try pool.runBlocking(PDFWorkerRequest(operation: .text, pageIndex: 0), pdf: pdf, key: "a")
            #expect(String(decoding: text, as: UTF8.self).contains("Hello from page one."))
            let pid = try #require(pool.workerProcessIDs.first)
            let arguments = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))
                .split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            let index = try #require(arguments.firstIndex(of: "--poll-microseconds"))
            #expect(arguments.dropFirst(index + 1).first == (window == .zero ? "0" : "750"))
        }
    }

    @Test("A worker started from a thread that then ends keeps serving, the same process")
    func workerOutlivesItsStartingThread() throws {
        let pool = PDFWorkerPool(
            settings: .init(executable: PDFWorkerPool.defaultExecutable(), workers: 1, deadline: .seconds(10)),
            metrics: StoreMetrics(), logger: Logger(label: "quire.test"))
        defer { pool.shutdown() }
        let pdf = PDFWorkPayload(try Fixture.data("one-page.pdf"))
        let request = PDFWorkerRequest(operation: .text, pageIndex: 0)
        Self.onThreadThatEnds { _ = try? pool.runBlocking(request, pdf: pdf, key: "a") }
        let pid = try #require(pool.workerProcessIDs.first)
        // A worker that dies with the thread gets SIGKILL as that thread exits: within microseconds.
        let until = ContinuousClock.now + .milliseconds(500)
        while ContinuousClock.now < until, Self.state(of: pid) != "Z" { usleep(5_000) }
        #expect(Self.state(of: pid) != "Z", "the worker died with the thread that started it")
        let text = try pool.runBlocking(request, pdf: pdf, key: "a")
        #expect(String(decoding: text, as: UTF8.self).contains("Hello from page one."))
        #expect(pool.workerProcessIDs == [pid])
    }
}

/// A worker executable that serves as quire-pdf does until told to stall, then never answers (a script in a
/// private directory that checks for a marker file at each start).
struct StallingWorker {
    /// The script to give the service as its worker executable.
    let script: String
    private let directory: URL
    private let marker: URL

    init() throws {
        directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("quire-stall-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        marker = directory.appendingPathComponent("stall")
        let url = directory.appendingPathComponent("worker.sh")
        try Data(
            "#!/bin/sh\n[ -e '\(marker.path)' ] && exec sleep 1000\nexec '\(PDFWorkerPool.defaultExecutable())' \"$@\"\n"
                .utf8
        ).write(to: url)
        #expect(chmod(url.path, 0o755) == 0)
        script = url.path
    }

    /// Workers started from now on stall.
    func stallFromNow() throws { try Data().write(to: marker) }

    /// Workers started from now on serve again.
    func serveAgain() throws { try FileManager.default.removeItem(at: marker) }

    /// Removes the script's directory.
    func remove() { try? FileManager.default.removeItem(at: directory) }
}
