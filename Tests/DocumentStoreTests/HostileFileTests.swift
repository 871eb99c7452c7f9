import DocumentModel
import DocumentStore
import FileCoordination
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Someone who can write under a root (or into the store) swaps a document's file for something else: the
/// store never serves or parses what lies outside, and never describes a file that is not there.
@Suite("Store against hostile file changes")
struct HostileFileTests {
    /// How an attacker replaces a document's file: each puts something at `staged` that the rename moves over it.
    enum Swap: String, CaseIterable, Sendable {
        case symbolicLink, hardLink, fifo, device

        /// Makes the replacement at `staged`, pointing at `secret` where that applies; false if this machine
        /// cannot (a device node needs root).
        func make(_ staged: String, secret: String) -> Bool {
            switch self {
            case .symbolicLink: return symlink(secret, staged) == 0
            case .hardLink: return link(secret, staged) == 0
            case .fifo: return mkfifo(staged, 0o600) == 0
            case .device: return mknod(staged, S_IFCHR | 0o600, dev_t((1 << 8) | 5)) == 0  // /dev/zero
            }
        }
    }

    /// The service's answers for the document while its file is not a readable PDF.
    static func expectRefused(
        _ client: any TestClientProtocol, _ id: String, file: String, never secret: Data
    ) async throws {
        let content = try await client.execute(uri: "/documents/\(id)/content", method: .get)
        #expect(content.status == .unprocessableContent)
        #expect(Data(buffer: content.body).range(of: secret.prefix(200)) == nil)
        let text = try await client.execute(uri: "/documents/\(id)/pages/1/text", method: .get)
        #expect(text.status == .unprocessableContent)
        let image = try await client.execute(uri: "/documents/\(id)/pages/1/image?dpi=10", method: .get)
        #expect(image.status == .unprocessableContent)
        let info = try jsonObject(try await client.execute(uri: "/documents/\(id)", method: .get))
        #expect(info["state"] as? String == "damaged")
        let damage = info["damage"] as? [String: Any]
        #expect(damage?["file"] as? String == file)
        #expect((damage?["reason"] as? String)?.isEmpty == false)
    }

    @Test(
        "A registered file swapped for a link, FIFO or device is never read: damaged, then clean again",
        arguments: Swap.allCases)
    func registeredFileSwapped(swap: Swap) async throws {
        let service = try DocumentService()
        try await service.run { client in
            let (id, _, url) = try await CoherenceTests.registered(service, client)
            #expect(try await client.execute(uri: "/documents/\(id)/content", method: .get).status == .ok)
            let secret = service.directory.url.appendingPathComponent("secret.pdf")  // outside the root
            let secretBytes = try Fixture.data("metadata.pdf")
            try secretBytes.write(to: secret)
            var after = try await service.catalog.lastEventID()
            let staged = service.root.appendingPathComponent("staged").path
            guard swap.make(staged, secret: secret.path) else { return }
            #expect(rename(staged, url.path) == 0)
            let damaged = try #require(try await service.waitForEvent(.damaged, of: id, after: after))
            #expect(damaged.extra["file"] == url.path)
            try await Self.expectRefused(client, id, file: url.path, never: secretBytes)
            // A readable PDF in its place again: changed, clean, served.
            after = try #require(damaged.id)
            let replacement = try Fixture.data("mixed-sizes.pdf")
            try replacement.write(to: URL(fileURLWithPath: staged + ".pdf"))
            #expect(rename(staged + ".pdf", url.path) == 0)
            let changed = try #require(try await service.waitForEvent(.changed, of: id, after: after))
            #expect(changed.etag == EntityTag(content: replacement))
            let info = try jsonObject(try await client.execute(uri: "/documents/\(id)", method: .get))
            #expect(info["state"] as? String == "clean")
            #expect(info["damage"] is NSNull)
            let content = try await client.execute(uri: "/documents/\(id)/content", method: .get)
            #expect(Data(buffer: content.body) == replacement)
        }
    }

    @Test("An upload's own file in the store swapped for a symbolic link is never served")
    func uploadSwapped() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let created = try await client.upload("one-page.pdf")
            let id = try #require(try jsonObject(created)["id"] as? String)
            try CoordinationService.synchronize()
            let secret = service.directory.url.appendingPathComponent("secret.pdf")
            let secretBytes = try Fixture.data("metadata.pdf")
            try secretBytes.write(to: secret)
            let file = service.configuration.storeDirectory.appendingPathComponent("files/\(id).pdf").path
            let after = try await service.catalog.lastEventID()
            let staged = file + ".staged"
            #expect(symlink(secret.path, staged) == 0)
            #expect(rename(staged, file) == 0)
            #expect(try await service.waitForEvent(.damaged, of: id, after: after) != nil)
            let content = try await client.execute(uri: "/documents/\(id)/content", method: .get)
            #expect(content.status == .unprocessableContent)
            #expect(Data(buffer: content.body).range(of: secretBytes.prefix(200)) == nil)
        }
    }

    @Test("A registered PDF overwritten with something that is not a PDF: damaged with a reason, then clean again")
    func nonPDFOverwrite() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let (id, _, url) = try await CoherenceTests.registered(service, client, "hundred-pages.pdf")
            var after = try await service.catalog.lastEventID()
            try Data("junk\n".utf8).write(to: url)
            let damaged = try #require(try await service.waitForEvent(.damaged, of: id, after: after))
            #expect(damaged.extra["reason"]?.isEmpty == false)
            try await Self.expectRefused(client, id, file: url.path, never: Data("%PDF-1.".utf8))
            let summary = try jsonObject(try await client.execute(uri: "/documents", method: .get))
            let listed = (summary["documents"] as? [[String: Any]])?.first { $0["id"] as? String == id }
            #expect(listed?["state"] as? String == "damaged")
            after = try #require(damaged.id)
            try Fixture.data("hundred-pages.pdf").write(to: url)
            #expect(try await service.waitForEvent(.changed, of: id, after: after) != nil)
            let info = try jsonObject(try await client.execute(uri: "/documents/\(id)", method: .get))
            #expect(info["state"] as? String == "clean")
            #expect(info["pageCount"] as? Int == 100)
        }
    }

    @Test("A change made right after an upload (cp into the store at once) is always noticed: 200 tries")
    func changeRightAfterUpload() async throws {
        let service = try DocumentService(maxOpenDocuments: 256)
        let replacement = try Fixture.data("metadata.pdf")
        let replacementTag = EntityTag(content: replacement)
        try await service.run { client in
            for _ in 0..<20 {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<10 {
                        group.addTask {
                            let created = try await client.upload("one-page.pdf")
                            let id = try #require(try jsonObject(created)["id"] as? String)
                            let file = service.configuration.storeDirectory.appendingPathComponent("files/\(id).pdf")
                            // As cp does: truncate and write in place, at once.
                            let handle = try FileHandle(forWritingTo: file)
                            try handle.truncate(atOffset: 0)
                            try handle.write(contentsOf: replacement)
                            try handle.close()
                            let changed = try await service.waitForEvent(.changed, of: id, seconds: 5)
                            #expect(changed?.etag == replacementTag, "document \(id): the change was missed")
                        }
                    }
                    try await group.waitForAll()
                }
            }
        }
    }

    /// Makes a directory outside the root (beside the store) and returns it.
    static func outsideDirectory(_ service: DocumentService) throws -> URL {
        let outside = service.directory.url.resolvingSymlinksInPath().appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        return outside
    }

    /// Writes `bytes` over the file at `url` in place, as `cp` does (truncate, then write).
    static func overwrite(_ url: URL, with bytes: Data) throws {
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: bytes)
        try handle.close()
    }

    // Fails on main (issue 29, item 3): no event at all (the directory's watch hears nothing of a link made or a
    // write made from another directory), the document stayed clean and served its old bytes.
    @Test("A hard link made from outside the root, and a write through it: damaged with its event, never old bytes")
    func hardLinkAddedAfterRegistration() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let (id, _, url) = try await CoherenceTests.registered(service, client)
            #expect(try await client.execute(uri: "/documents/\(id)/content", method: .get).status == .ok)
            let link = try Self.outsideDirectory(service).appendingPathComponent("x")
            let other = try Fixture.data("metadata.pdf")
            var after = try await service.catalog.lastEventID()
            // ln root/x.pdf /outside/x; cp other.pdf /outside/x
            #expect(Glibc.link(url.path, link.path) == 0)
            try Self.overwrite(link, with: other)
            let damaged = try #require(try await service.waitForEvent(.damaged, of: id, after: after))
            #expect(damaged.extra["file"] == url.path)
            #expect(damaged.extra["reason"]?.isEmpty == false)
            try await Self.expectRefused(client, id, file: url.path, never: other)
            let between = try await service.events(after: after).filter { $0.documentID.rawValue == id }
            #expect(!between.contains { $0.type == .changed }, "\(between.map(\.type))")
            // The outside link removed: the file has one link again, and is what was written through the link.
            after = try #require(damaged.id)
            #expect(unlink(link.path) == 0)
            let changed = try #require(try await service.waitForEvent(.changed, of: id, after: after))
            #expect(changed.etag == EntityTag(content: other))
            let content = try await client.execute(uri: "/documents/\(id)/content", method: .get)
            #expect(content.status == .ok)
            #expect(Data(buffer: content.body) == other)
        }
    }

    // Fails on main (issue 29, item 3): the content route answered the bytes it read before the link, 200.
    @Test("Even with no event at all (the inode watch off), a hard link made since the last read is never served")
    func hardLinkWithoutEvent() async throws {
        // Process-wide: `make test` runs the tests one at a time (--no-parallel).
        InodeWatch.setEnabled(false)
        defer { InodeWatch.setEnabled(true) }
        let service = try DocumentService()
        try await service.run { client in
            let (id, _, url) = try await CoherenceTests.registered(service, client)
            let original = try Fixture.data("one-page.pdf")
            let first = try await client.execute(uri: "/documents/\(id)/content", method: .get)
            #expect(Data(buffer: first.body) == original)
            #expect(service.library.cachedContent(DocumentID(rawValue: id)!) != nil)  // the fast path's answer
            let link = try Self.outsideDirectory(service).appendingPathComponent("x")
            let other = try Fixture.data("metadata.pdf")
            let after = try await service.catalog.lastEventID()
            #expect(Glibc.link(url.path, link.path) == 0)
            try Self.overwrite(link, with: other)
            // At once, before any watcher could have said a word.
            #expect(service.library.cachedContent(DocumentID(rawValue: id)!) == nil)
            let content = try await client.execute(uri: "/documents/\(id)/content", method: .get)
            #expect(content.status == .unprocessableContent)
            #expect(Data(buffer: content.body).range(of: other.prefix(200)) == nil)
            #expect(Data(buffer: content.body).range(of: original.prefix(200)) == nil)
            // The request recorded what it found.
            #expect(try await service.waitForEvent(.damaged, of: id, after: after, seconds: 1) != nil)
            try await Self.expectRefused(client, id, file: url.path, never: other)
        }
    }

    // Fails on main (issue 29, item 4): `changed` with the tag it had, the document still `deleted`.
    @Test(
        "A deleted file replaced by a symbolic link out of the root: damaged, never changed",
        arguments: [false, true])
    func deletedThenSymbolicLink(waitForDeletion: Bool) async throws {
        let service = try DocumentService()
        try await service.run { client in
            let (id, _, url) = try await CoherenceTests.registered(service, client)
            #expect(try await client.execute(uri: "/documents/\(id)/content", method: .get).status == .ok)
            let secret = try Self.outsideDirectory(service).appendingPathComponent("c.pdf")
            let secretBytes = try Fixture.data("metadata.pdf")
            try secretBytes.write(to: secret)
            var after = try await service.catalog.lastEventID()
            // rm x.pdf; ln -s /outside/c.pdf x.pdf
            #expect(unlink(url.path) == 0)
            if waitForDeletion {
                after = try #require(try await service.waitForEvent(.deleted, of: id, after: after)?.id)
            }
            #expect(symlink(secret.path, url.path) == 0)
            let damaged = try #require(try await service.waitForEvent(.damaged, of: id, after: after))
            #expect(damaged.extra["file"] == url.path)
            try await Self.expectRefused(client, id, file: url.path, never: secretBytes)
            let since = try await service.events(after: after).filter { $0.documentID.rawValue == id }
            #expect(!since.contains { $0.type == .changed }, "\(since.map(\.type))")
            // A readable PDF in its place again: changed, clean, served.
            after = try #require(damaged.id)
            let replacement = try Fixture.data("mixed-sizes.pdf")
            let staged = service.root.appendingPathComponent("staged.pdf")
            try replacement.write(to: staged)
            #expect(rename(staged.path, url.path) == 0)
            let changed = try #require(try await service.waitForEvent(.changed, of: id, after: after))
            #expect(changed.etag == EntityTag(content: replacement))
            let content = try await client.execute(uri: "/documents/\(id)/content", method: .get)
            #expect(Data(buffer: content.body) == replacement)
        }
    }

    @Test("One file registered under different spellings is one document")
    func sameFileTwice() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let (id, _, url) = try await CoherenceTests.registered(service, client)
            let directory = url.deletingLastPathComponent().path
            let link = service.root.appendingPathComponent("alias")
            #expect(symlink(directory, link.path) == 0)
            let spellings = [
                directory + "/./" + url.lastPathComponent, directory + "//" + url.lastPathComponent,
                link.path + "/" + url.lastPathComponent,
            ]
            for spelling in spellings {
                let again = try await client.send("/documents", .post, json: #"{"files": ["\#(spelling)"]}"#)
                #expect(again.status == .ok, "\(spelling)")
                #expect(try jsonObject(again)["id"] as? String == id)
                #expect(again.headers[.location] == "/documents/\(id)")
            }
            let list = try jsonObject(try await client.execute(uri: "/documents", method: .get))
            #expect((list["documents"] as? [Any])?.count == 1)
            // A file already in a document cannot join another one.
            let other = try service.place("one-page.pdf", as: "other.pdf")
            let mixed = try await client.send(
                "/documents", .post, json: #"{"files": ["\#(other.path)", "\#(url.path)"]}"#)
            #expect(mixed.status == .conflict)
        }
    }
}
