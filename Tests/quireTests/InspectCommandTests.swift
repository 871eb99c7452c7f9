import Foundation
import Testing

@Suite("quire inspect")
struct InspectCommandTests {
    @Test("info lists pages, sizes, labels, metadata and permissions")
    func info() throws {
        let result = try QuireProcess.run(["inspect", QuireProcess.fixture("page-labels.pdf")])
        #expect(result.status == 0)
        #expect(result.standardError.isEmpty)
        #expect(result.output.contains("Pages:       6\n"))
        #expect(result.output.contains("Labels:      i, ii, 1, 2, 3, A-1\n"))
        #expect(result.output.contains("Pages 1-6:   612 x 792 pt\n"))
        #expect(result.output.contains("Encrypted:   no\n"))
    }

    @Test("--json prints one JSON document with the facts")
    func infoJSON() throws {
        let result = try QuireProcess.run(["inspect", "--json", QuireProcess.fixture("metadata.pdf")])
        #expect(result.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
        #expect(json["pageCount"] as? Int == 2)
        let metadata = try #require(json["metadata"] as? [String: Any])
        #expect(metadata["title"] as? String == "Métadonnées – テスト Title")
        #expect(metadata["creationDate"] as? String == "2024-01-02T03:04:05Z")
        let pages = try #require(json["pages"] as? [[String: Any]])
        let widths = pages.compactMap { $0["width"] as? Double }
        #expect(widths.count == 2 && abs(widths[0] - 595.28) < 0.01 && widths[1] == 792)
        #expect(json["encrypted"] as? Bool == false)
        #expect((json["permissions"] as? [String])?.contains("print") == true)
    }

    @Test("encryption and permissions are reported for an owner-only PDF")
    func ownerOnly() throws {
        let result = try QuireProcess.run(["inspect", "--json", QuireProcess.fixture("owner-only-encrypted.pdf")])
        let json = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
        #expect(json["encrypted"] as? Bool == true)
        #expect(json["neededPassword"] as? Bool == false)
        #expect((json["permissions"] as? [String])?.contains("print") == false)
    }

    @Test("--password opens an encrypted PDF")
    func password() throws {
        let result = try QuireProcess.run(["inspect", "--password", "userpw", QuireProcess.fixture("encrypted-aes256.pdf")])
        #expect(result.status == 0)
        #expect(result.output.contains("Encrypted:   yes (password needed)"))
    }

    @Test("--text prints every page, each ending with a form feed, the same with one or two threads")
    func text() throws {
        let file = QuireProcess.fixture("hundred-pages.pdf")
        let one = try QuireProcess.run(["inspect", "--text", "--jobs", "1", file])
        let two = try QuireProcess.run(["inspect", "--text", "--jobs", "2", file])
        #expect(one.status == 0 && two.status == 0)
        #expect(one.standardOutput == two.standardOutput)
        let pages = one.output.split(separator: "\u{0C}", omittingEmptySubsequences: false)
        #expect(pages.count == 101)  // 100 pages and what follows the last form feed
        #expect(pages[99].trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("Page 100 of 100"))
    }

    @Test("--pages selects pages by 1-based ranges")
    func pageSelection() throws {
        let result = try QuireProcess.run(["inspect", "--text", "--pages", "2-3,100", QuireProcess.fixture("hundred-pages.pdf")])
        #expect(result.status == 0)
        let pages = result.output.split(separator: "\u{0C}").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty }
        #expect(pages.map { String($0.prefix(15)) } == ["Page 2 of 100\nL", "Page 3 of 100\nL", "Page 100 of 100"])
    }

    @Test("--text --json prints pages with their numbers")
    func textJSON() throws {
        let result = try QuireProcess.run(["inspect", "--text", "--json", "--pages", "1", QuireProcess.fixture("one-page.pdf")])
        let json = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
        let pages = try #require(json["pages"] as? [[String: Any]])
        #expect(pages.count == 1)
        #expect(pages[0]["page"] as? Int == 1)
        #expect((pages[0]["text"] as? String)?.contains("Hello from page one.") == true)
    }

    @Test("--render writes a PNG of the page at the requested resolution")
    func render() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("quire-render-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try QuireProcess.run([
            "inspect", "--render", "2", "--dpi", "72", "-o", output.path, "--json", QuireProcess.fixture("metadata.pdf"),
        ])
        #expect(result.status == 0)
        let png = try [UInt8](Data(contentsOf: output))
        #expect(Array(png.prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
        let width = png[16...19].reduce(0) { $0 << 8 | Int($1) }
        let height = png[20...23].reduce(0) { $0 << 8 | Int($1) }
        #expect(width == 792 && height == 612)
        let json = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
        #expect(json["width"] as? Int == 792 && json["bytes"] as? Int == png.count)
    }
}
