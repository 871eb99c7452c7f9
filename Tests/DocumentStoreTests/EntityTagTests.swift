import DocumentStore
import Foundation
import Testing

@Suite("Entity tags")
struct EntityTagTests {
    @Test("a content tag is the lowercase hex SHA-256 of the bytes, as sha256sum prints it")
    func contentTag() {
        let tag = EntityTag(content: Data("abc".utf8))
        #expect(tag.opaqueTag == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(!tag.isWeak)
        #expect(tag.headerValue == "\"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\"")
        #expect(
            EntityTag(content: Data()).opaqueTag == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test("content hashed in pieces gives the tag of the whole")
    func incrementalHashing() {
        let content = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        var hasher = EntityTag.ContentHasher()
        var offset = 0
        for size in [1, 7, 4096, 65_536, 100_000] where offset < content.count {
            let end = min(content.count, offset + size)
            hasher.update(content[offset..<end])
            offset = end
        }
        hasher.update(content[offset...])
        #expect(hasher.finalize() == EntityTag(content: content))
    }

    @Test("a document of several files is tagged from its files' tags, in order; one file keeps its tag")
    func combinedTag() {
        let first = EntityTag(content: Data("first".utf8))
        let second = EntityTag(content: Data("second".utf8))
        #expect(EntityTag(combining: [first]) == first)
        let combined = EntityTag(combining: [first, second])
        #expect(combined != first && combined != second)
        #expect(combined == EntityTag(combining: [first, second]))
        #expect(combined != EntityTag(combining: [second, first]))
        #expect(combined == EntityTag(content: Data((first.opaqueTag + "\n" + second.opaqueTag + "\n").utf8)))
    }

    @Test("header values parse as one strong or weak tag, or not at all")
    func headerParsing() {
        #expect(EntityTag(headerValue: "\"abc\"") == EntityTag(opaqueTag: "abc"))
        #expect(EntityTag(headerValue: " W/\"abc\" ") == EntityTag(opaqueTag: "abc", isWeak: true))
        #expect(EntityTag(headerValue: "\"\"") == EntityTag(opaqueTag: ""))
        #expect(EntityTag(headerValue: "\"a,b\"")?.opaqueTag == "a,b")
        for invalid in ["abc", "\"abc", "w/\"abc\"", "W\"abc\"", "\"a\" \"b\"", "\"a b\"", "", "*"] {
            #expect(EntityTag(headerValue: invalid) == nil, "\(invalid)")
        }
        #expect(EntityTag(opaqueTag: "a\"b") == nil)
        #expect(EntityTag(opaqueTag: "a b") == nil)
    }

    @Test("strong comparison needs two strong tags; weak comparison ignores weakness")
    func comparisons() {
        let strong = EntityTag(opaqueTag: "1")!
        let weak = EntityTag(opaqueTag: "1", isWeak: true)!
        let other = EntityTag(opaqueTag: "2")!
        #expect(strong.matchesStrongly(strong))
        #expect(!strong.matchesStrongly(weak) && !weak.matchesStrongly(strong) && !weak.matchesStrongly(weak))
        #expect(strong.matchesWeakly(weak) && weak.matchesWeakly(weak))
        #expect(!strong.matchesStrongly(other) && !strong.matchesWeakly(other))
    }
}
