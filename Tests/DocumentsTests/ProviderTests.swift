import Documents
import Foundation
import Testing

@Suite("Data providers and sinks")
struct ProviderTests {
    @Test("XXH64 matches the reference digests and does not depend on how the bytes are split")
    func fingerprintDigests() {
        #expect(ContentFingerprint(of: Data()).digest == 0xEF46_DB37_51D8_E999)
        #expect(ContentFingerprint(of: Data("a".utf8)).digest == 0xD24E_C4F1_A98C_6E5B)
        #expect(ContentFingerprint(of: Data("abc".utf8)).digest == 0x44BC_2CF5_AD77_0999)
        let long = Data("Nobody inspects the spammish repetition".utf8)
        #expect(ContentFingerprint(of: long).digest == 0xFBCE_A83C_8A37_8BF1)
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<5000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let whole = ContentFingerprint(of: bytes)
        let sink = MemoryDataProvider(data: Data())
        #expect(sink.uid.hasPrefix("memory-"))
        var changed = bytes
        changed[4321] ^= 1
        #expect(ContentFingerprint(of: changed) != whole)
        #expect(whole.size == 5000)
    }

    @Test("A file provider reads the whole file and random chunks from many threads")
    func fileProviderReads() async throws {
        try await offPool {
            let folder = try Folder()
            defer { folder.remove() }
            let url = try folder.copy("hundred-pages.pdf")
            let expected = try Data(contentsOf: url)
            for provider in [FileDataProvider(fileURL: url), CoordinatedFileDataProvider(fileURL: url)] {
                try checkReads(provider, url: url, expected: expected)
            }
        }
    }

    private func checkReads(_ provider: FileDataProvider, url: URL, expected: Data) throws {
        #expect(try provider.data() == expected)
        #expect(provider.size == UInt64(expected.count))
        #expect(provider.uid == url.path)
        let mismatches = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 200) { index in
            let offset = (index * 7919) % expected.count
            let size = 1 + (index * 104_729) % 9000
            let chunk = try? provider.readData(size: size, atOffset: UInt64(offset))
            let end = min(expected.count, offset + size)
            if chunk != expected.subdata(in: offset..<end) { mismatches.withLock { $0 += 1 } }
        }
        #expect(mismatches.value == 0)
        #expect(try provider.readData(size: 10, atOffset: UInt64(expected.count)).isEmpty)
    }

    @Test("A sink writes to a hidden temporary file with the same extension beside the file; replace is atomic")
    func fileSinkReplace() async throws {
        try await offPool {
            let folder = try Folder()
            defer { folder.remove() }
            let url = try folder.copy("one-page.pdf", as: "report.pdf")
            let provider = FileDataProvider(fileURL: url)
            let sink = try #require(try provider.createDataSink(options: []) as? FileDataSink)
            #expect(sink.fileURL.deletingLastPathComponent() == url.deletingLastPathComponent())
            #expect(sink.fileURL.pathExtension == "pdf")
            #expect(sink.fileURL.lastPathComponent.hasPrefix(".report."))
            #expect(sink.options == [])
            let replacement = try Fixture.data("metadata.pdf")
            #expect(sink.writeData(replacement.prefix(100)))
            #expect(sink.writeData(replacement.dropFirst(100)))
            #expect(try Data(contentsOf: url) == Fixture.data("one-page.pdf"))  // nothing in place before replace
            #expect(sink.finish())
            #expect(sink.isFinished)
            try provider.replaceContents(with: sink)
            #expect(try Data(contentsOf: url) == replacement)
            #expect(!FileManager.default.fileExists(atPath: sink.fileURL.path))
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.root.path)
            #expect(leftovers == ["report.pdf"])
        }
    }

    @Test("An .append sink starts with the existing bytes")
    func appendSink() async throws {
        try await offPool {
            let folder = try Folder()
            defer { folder.remove() }
            let url = folder.url("log.txt")
            try Data("first\n".utf8).write(to: url)
            for provider in [FileDataProvider(fileURL: url), CoordinatedFileDataProvider(fileURL: url)]
                as [any WritableDataProviding]
            {
                let sink = try provider.createDataSink(options: .append)
                #expect(sink.options == .append)
                #expect(sink.writeData(Data("more\n".utf8)))
                #expect(sink.finish())
                try provider.replaceContents(with: sink)
            }
            #expect(try String(contentsOf: url, encoding: .utf8) == "first\nmore\nmore\n")
            let memory = MemoryDataProvider(data: Data("abc".utf8))
            let sink = try memory.createDataSink(options: .append)
            #expect(sink.writeData(Data("def".utf8)) && sink.finish())
            try memory.replaceContents(with: sink)
            #expect(try memory.data() == Data("abcdef".utf8))
        }
    }

    @Test("An unfinished, foreign, reused or failed sink is refused with a typed error; the file is untouched")
    func badSinks() async throws {
        try await offPool {
            let folder = try Folder()
            defer { folder.remove() }
            let url = try folder.copy("one-page.pdf")
            let original = try Data(contentsOf: url)
            let provider = CoordinatedFileDataProvider(fileURL: url)
            let other = FileDataProvider(fileURL: url)

            let unfinished = try provider.createDataSink(options: [])
            _ = unfinished.writeData(Data("x".utf8))
            #expect(throws: DataProviderError.sinkNotFinished) { try provider.replaceContents(with: unfinished) }

            let foreign = try other.createDataSink(options: [])
            _ = foreign.finish()
            #expect(throws: DataProviderError.foreignSink) { try provider.replaceContents(with: foreign) }
            let memorySink = try MemoryDataProvider(data: Data()).createDataSink(options: [])
            _ = memorySink.finish()
            #expect(throws: DataProviderError.foreignSink) { try provider.replaceContents(with: memorySink) }
            #expect(throws: DataProviderError.foreignSink) {
                try MemoryDataProvider(data: Data()).replaceContents(with: foreign)
            }

            let late = try #require(try provider.createDataSink(options: []) as? FileDataSink)
            #expect(late.finish())
            #expect(!late.writeData(Data("after".utf8)))
            #expect(late.failure == .sinkFinished)
            #expect(throws: DataProviderError.sinkFailed(DataProviderError.sinkFinished.description)) {
                try provider.replaceContents(with: late)
            }
            let memory = MemoryDataProvider(data: Data("keep".utf8))
            let lateMemory = try memory.createDataSink(options: [])
            #expect(lateMemory.finish())
            #expect(!lateMemory.writeData(Data("after".utf8)))
            #expect(throws: DataProviderError.self) { try memory.replaceContents(with: lateMemory) }
            #expect(try memory.data() == Data("keep".utf8))

            let once = try provider.createDataSink(options: [])
            #expect(once.writeData(original) && once.finish())
            try provider.replaceContents(with: once)
            #expect(throws: DataProviderError.sinkConsumed) { try provider.replaceContents(with: once) }
            #expect(try Data(contentsOf: url) == original)
        }
    }

    @Test("A missing file or a directory gives a typed error naming the path")
    func missingAndDirectory() async throws {
        try await offPool {
            let folder = try Folder()
            defer { folder.remove() }
            let missing = FileDataProvider(fileURL: folder.url("nope.pdf"))
            do {
                _ = try missing.data()
                Issue.record("reading a missing file succeeded")
            } catch let error as DataProviderError {
                #expect(error.isFileMissing)
                #expect(error.description.contains("nope.pdf"))
            }
            #expect(missing.size == 0)
            #expect(throws: DataProviderError.isDirectory(path: folder.root.path)) {
                try FileDataProvider(fileURL: folder.root).data()
            }
        }
    }

    @Test("deleteData removes the file; a memory provider empties")
    func deleting() async throws {
        try await offPool {
            let folder = try Folder()
            defer { folder.remove() }
            let url = try folder.copy("one-page.pdf")
            try CoordinatedFileDataProvider(fileURL: url).deleteData()
            #expect(!FileManager.default.fileExists(atPath: url.path))
            let memory = MemoryDataProvider(data: Data("abc".utf8))
            try memory.deleteData()
            #expect(memory.size == 0)
        }
    }
}
