import Foundation
import StoreClient
import Testing

/// `quire status`, `resolve`, `versions` and `events` against a real `quire serve` child process.
@Suite("quire status, resolve, versions, events")
struct StoreCommandTests {
    @Test(
        "with no service listening: one line naming the URL and `quire serve`, exit code 69",
        arguments: [["status"], ["resolve", "abc", "--reload"], ["versions", "abc"], ["events"]])
    func noService(_ arguments: [String]) throws {
        let url = "http://127.0.0.1:\(try Self.closedLoopbackPort())"
        let result = try QuireProcess.run(arguments + ["--server", url], timeout: 30)
        #expect(result.status == 69)
        #expect(result.output.isEmpty)
        #expect(result.errorLines == ["quire: error: no quire service at \(url): start one with `quire serve`"])
    }

    @Test("QUIRE_SERVER names the service when --server is not given; a bad URL is exit code 64")
    func serverFromEnvironment() throws {
        let url = "http://127.0.0.1:\(try Self.closedLoopbackPort())"
        let result = try QuireProcess.run(["status"], environment: ["QUIRE_SERVER": url], timeout: 30)
        #expect(result.status == 69)
        #expect(result.standardError.contains("no quire service at \(url)"))
        let bad = try QuireProcess.run(["status", "--server", "ftp://example"], timeout: 30)
        #expect(bad.status == 64)
        #expect(bad.errorLines.count == 1)
    }

    @Test("resolve needs exactly one of --reload, --save and --close", arguments: [[], ["--reload", "--save"]])
    func resolveFlags(_ flags: [String]) throws {
        let result = try QuireProcess.run(["resolve", "abc"] + flags, timeout: 30)
        #expect(result.status == 64)
        #expect(result.errorLines.count == 1)
    }

    @Test("status of an empty store: a sentence for people, an empty list in JSON")
    func emptyStatus() throws {
        let sandbox = try CoordinationSandbox()
        let service = try RunningService(sandbox: sandbox)
        let text = try sandbox.quire(["status", "--server", service.url])
        #expect(text.status == 0, "\(text.standardError)")
        #expect(text.output == "no documents at \(service.url)\n")
        let json = try sandbox.quire(["status", "--json", "--server", service.url])
        #expect(json.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: json.standardOutput) as? [String: Any])
        #expect(object["server"] as? String == service.url)
        #expect((object["documents"] as? [Any])?.isEmpty == true)
        #expect(object["more"] as? Bool == false)
        #expect(service.stop() == 0)
    }

    @Test("status shows the first --limit documents and says whether more follow; --state asks the service")
    func statusLimitAndState() async throws {
        let sandbox = try CoordinationSandbox()
        let service = try RunningService(sandbox: sandbox)
        let client = try service.client()
        let ids = try await DocumentListingClientTests.upload(5, to: client)
        for id in [ids[1], ids[3]] { _ = try await client.updateMetadata(of: id, DocumentMetadata(title: "Edited")) }
        let server = ["--server", service.url]

        let limited = try sandbox.quire(["status", "--limit", "2"] + server)
        #expect(limited.status == 0, "\(limited.standardError)")
        let lines = limited.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(limited.output)")  // header, two documents, the count
        #expect(lines.dropFirst().prefix(2).map { String($0.prefix { $0 != " " }) } == Array(ids.prefix(2)))
        #expect(lines.last == "2 documents shown; more follow — raise --limit")
        let all = try sandbox.quire(["status"] + server)
        #expect(all.output.split(separator: "\n").last == "5 documents shown", "\(all.output)")
        let exact = try sandbox.quire(["status", "--limit", "5"] + server)
        #expect(exact.output.split(separator: "\n").last == "5 documents shown", "\(exact.output)")

        let dirty = try sandbox.quire(["status", "--state", "dirty"] + server)
        #expect(dirty.status == 0, "\(dirty.standardError)")
        let dirtyLines = dirty.output.split(separator: "\n").map(String.init)
        #expect(dirtyLines.dropFirst().dropLast().map { String($0.prefix { $0 != " " }) } == [ids[1], ids[3]])
        #expect(dirtyLines.last == "2 documents shown (state: dirty)")
        let both = try sandbox.quire(["status", "--state", "dirty", "--state", "clean", "--limit", "4"] + server)
        #expect(
            both.output.split(separator: "\n").last
                == "4 documents shown (state: clean, dirty); more follow — raise --limit")
        let none = try sandbox.quire(["status", "--state", "conflict,deleted"] + server)
        #expect(none.output == "no documents at \(service.url) (state: conflict, deleted)\n")

        let json = try sandbox.quire(["status", "--json", "--limit", "3"] + server)
        let object = try #require(try JSONSerialization.jsonObject(with: json.standardOutput) as? [String: Any])
        #expect((object["documents"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == Array(ids.prefix(3)))
        #expect(object["more"] as? Bool == true)
        let dirtyJSON = try sandbox.quire(["status", "--json", "--state", "dirty", "--limit", "2"] + server)
        let dirtyObject = try #require(
            try JSONSerialization.jsonObject(with: dirtyJSON.standardOutput) as? [String: Any])
        #expect(dirtyObject["more"] as? Bool == false)
        #expect(Set(dirtyObject.keys) == ["server", "documents", "more"])

        for bad in [["--limit", "0"], ["--limit", "-3"], ["--state", "bogus"], ["--state", "dirty,"]] {
            let refused = try sandbox.quire(["status"] + bad + server)
            #expect(refused.status == 64, "\(bad): \(refused.standardError)")
            #expect(refused.errorLines.count == 1, "\(bad): \(refused.standardError)")
            #expect(refused.output.isEmpty)
        }
        try await client.shutdown()
        #expect(service.stop() == 0)
    }

    @Test("with a token configured: none or a wrong one is exit code 77; the right one (or QUIRE_TOKEN) gets through")
    func token() throws {
        let sandbox = try CoordinationSandbox()
        let service = try RunningService(sandbox: sandbox, arguments: ["--token", "s3cret"])
        let missing = try sandbox.quire(["resolve", "nosuchdocument", "--reload", "--server", service.url])
        #expect(missing.status == 77, "\(missing.standardError)")
        #expect(missing.errorLines.count == 1)
        let wrong = try sandbox.quire([
            "resolve", "nosuchdocument", "--reload", "--server", service.url, "--token", "x",
        ])
        #expect(wrong.status == 77)
        let right = try sandbox.quire([
            "resolve", "nosuchdocument", "--reload", "--server", service.url, "--token", "s3cret",
        ])
        #expect(right.status == 66, "\(right.standardError)")
        let fromEnvironment = try QuireProcess.run(
            ["resolve", "nosuchdocument", "--reload", "--server", service.url],
            environment: sandbox.environment.merging(["QUIRE_TOKEN": "s3cret"]) { $1 }, timeout: 30)
        #expect(fromEnvironment.status == 66)
        #expect(service.stop() == 0)
    }

    @Test("status shows a conflict and why; resolve --reload ends it; an unknown id is 66, no conflict is 65")
    func statusAndResolve() async throws {
        let sandbox = try CoordinationSandbox()
        let service = try RunningService(sandbox: sandbox)
        let client = try service.client()
        let file = try sandbox.copyFixture("one-page.pdf", as: "report.pdf")
        let document = try await client.register(files: [file])
        _ = try await client.updateMetadata(of: document.id, DocumentMetadata(title: "Edited"))
        let clean = try sandbox.quire(["status", "--server", service.url])
        #expect(clean.output.contains("\(document.id)  dirty  unsaved edits"), "\(clean.output)")
        let other = QuireProcess.fixture("libjs-pdf-helloworld.pdf")
        #expect(try sandbox.quire(["write", file, "--from", other]).status == 0)
        _ = try await eventually("the conflict") {
            try await client.document(document.id).state == .conflict ? true : nil
        }
        let text = try sandbox.quire(["status", "--server", service.url])
        #expect(text.status == 0)
        let path = URL(fileURLWithPath: file).resolvingSymlinksInPath().path
        #expect(text.output.contains("conflict  modification of \(path)"), "\(text.output)")
        let json = try sandbox.quire(["status", "--json", "--server", service.url])
        let object = try #require(try JSONSerialization.jsonObject(with: json.standardOutput) as? [String: Any])
        let entry = try #require((object["documents"] as? [[String: Any]])?.first)
        #expect(entry["id"] as? String == document.id)
        #expect(entry["state"] as? String == "conflict")
        #expect((entry["conflict"] as? [String: Any])?["type"] as? String == "modification")
        for key in ["why", "title", "pageCount", "size", "etag", "updatedAt"] { #expect(entry[key] != nil, "\(key)") }

        let resolved = try sandbox.quire(["resolve", document.id, "--reload", "--server", service.url])
        #expect(resolved.status == 0, "\(resolved.standardError)")
        #expect(resolved.output.hasPrefix("\(document.id): resolved by reload; now clean, etag \""))
        let again = try sandbox.quire(["resolve", document.id, "--reload", "--json", "--server", service.url])
        #expect(again.status == 65, "\(again.standardError)")
        #expect(again.errorLines.count == 1)
        let unknown = try sandbox.quire(["resolve", "nosuchdocument", "--save", "--server", service.url])
        #expect(unknown.status == 66)
        #expect(unknown.errorLines.count == 1)
        try await client.shutdown()
        #expect(service.stop() == 0)
    }

    @Test("versions lists the edits a reload kept (--json: one document); --restore brings them back; 66 unknown")
    func versionsAndRestore() async throws {
        let sandbox = try CoordinationSandbox()
        let service = try RunningService(sandbox: sandbox)
        let client = try service.client()
        let file = try sandbox.copyFixture("one-page.pdf", as: "report.pdf")
        let document = try await client.register(files: [file])
        let none = try sandbox.quire(["versions", document.id, "--server", service.url])
        #expect(none.status == 0 && none.output == "\(document.id): no versions\n", "\(none.standardError)")
        _ = try await client.updateMetadata(of: document.id, DocumentMetadata(title: "Edited"))
        #expect(try sandbox.quire(["write", file, "--from", QuireProcess.fixture("libjs-pdf-helloworld.pdf")]).status == 0)
        _ = try await eventually("the conflict") {
            try await client.document(document.id).state == .conflict ? true : nil
        }
        #expect(try sandbox.quire(["resolve", document.id, "--reload", "--server", service.url]).status == 0)

        let json = try sandbox.quire(["versions", document.id, "--json", "--server", service.url])
        #expect(json.status == 0, "\(json.standardError)")
        let object = try #require(try JSONSerialization.jsonObject(with: json.standardOutput) as? [String: Any])
        #expect(object["id"] as? String == document.id)
        let versions = try #require(object["versions"] as? [[String: Any]])
        #expect(versions.count == 1)
        let version = try #require(versions.first?["id"] as? String)
        #expect(versions.first?["isConflict"] as? Bool == true)
        let text = try sandbox.quire(["versions", document.id, "--server", service.url])
        #expect(text.output.hasPrefix(version + "  ") && text.output.contains("  conflict  "), "\(text.output)")

        let restored = try sandbox.quire(["versions", document.id, "--restore", version, "--server", service.url])
        #expect(restored.status == 0, "\(restored.standardError)")
        #expect(restored.output.hasPrefix("\(document.id): restored version \(version); now clean, etag \""))
        #expect(try await client.document(document.id).metadata.title == "Edited")
        let unknown = try sandbox.quire([
            "versions", document.id, "--restore", UUID().uuidString, "--server", service.url,
        ])
        #expect(unknown.status == 66 && unknown.errorLines.count == 1, "\(unknown.standardError)")
        #expect(try sandbox.quire(["versions", "nosuchdocument", "--server", service.url]).status == 66)
        try await client.shutdown()
        #expect(service.stop() == 0)
    }

    @Test("events --since replays the log (one JSON object per line with --json); events follows new ones live")
    func events() async throws {
        let sandbox = try CoordinationSandbox()
        let service = try RunningService(sandbox: sandbox)
        let client = try service.client()
        let first = try await client.upload(
            pdf: Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture("one-page.pdf"))))
        let second = try await client.upload(
            pdf: Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture("page-labels.pdf"))))

        let json = try sandbox.quire(["events", "--since", "0", "--count", "2", "--json", "--server", service.url])
        #expect(json.status == 0, "\(json.standardError)")
        let lines = json.output.split(separator: "\n")
        #expect(lines.count == 2)
        let objects = try lines.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects.map { $0["type"] as? String } == ["created", "created"])
        #expect(objects.map { $0["document"] as? String } == [first.id, second.id])
        #expect(objects.map { $0["etag"] as? String } == [first.etag, second.etag])
        let firstID = try #require(objects[0]["id"] as? Int)
        #expect(objects[1]["id"] as? Int == firstID + 1)

        let replay = try sandbox.quire(["events", "--since", String(firstID), "--count", "1", "--server", service.url])
        #expect(replay.output.hasPrefix("\(firstID + 1) "), "\(replay.output)")
        #expect(replay.output.contains(" created \(second.id) etag \(second.etag)"))

        let follower = try sandbox.start(["events", "--count", "1", "--server", service.url])
        #expect(follower.waitFor("following events at \(service.url)", inStandardError: true))
        let third = try await client.upload(
            pdf: Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture("annotations.pdf"))))
        #expect(follower.waitForExit() == 0)
        #expect(follower.standardOutput.contains(" created \(third.id) "), "\(follower.standardOutput)")
        try await client.shutdown()
        #expect(service.stop() == 0)
    }

    /// A loopback port nothing listens on (bound, then closed).
    static func closedLoopbackPort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(socket, generic, length) == 0 && getsockname(socket, generic, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRNOTAVAIL) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
