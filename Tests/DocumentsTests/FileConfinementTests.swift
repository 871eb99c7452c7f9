@testable import DocumentModel
import Documents
import FileCoordination
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A confined provider reads only regular files with one link beneath its root, through no symbolic link.
@Suite("Confined file providers")
struct FileConfinementTests {
    /// A root with `inside/doc.pdf` and, outside it, `secret.pdf`.
    struct Layout {
        let folder: Folder
        let root: URL
        let document: URL
        let secret: URL
        let confinement: FileConfinement

        init(_ label: String = #function, resolver: FileConfinement.Resolver = .automatic) throws {
            folder = try Folder(label)
            root = folder.url("root")
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent("inside"), withIntermediateDirectories: true)
            document = root.appendingPathComponent("inside/doc.pdf")
            try Fixture.data("one-page.pdf").write(to: document)
            secret = folder.url("secret.pdf")
            try Fixture.data("metadata.pdf").write(to: secret)
            confinement = try FileConfinement(root: root, resolver: resolver)
        }

        func provider() -> FileDataProvider { FileDataProvider(fileURL: document, confinement: confinement) }

        /// Puts `make(staged)` in the document's place by a rename, as an attacker would.
        func replaceDocument(_ make: (String) -> Int32) {
            let staged = root.appendingPathComponent("inside/staged").path
            #expect(make(staged) == 0)
            #expect(rename(staged, document.path) == 0)
        }
    }

    @Test("A regular file beneath the root reads as it is", arguments: [FileConfinement.Resolver.automatic, .walk])
    func regularFile(resolver: FileConfinement.Resolver) throws {
        let layout = try Layout(resolver: resolver)
        defer { layout.folder.remove() }
        #expect(try layout.provider().data() == Fixture.data("one-page.pdf"))
        #expect(layout.provider().size == UInt64(try Fixture.data("one-page.pdf").count))
    }

    @Test(
        "A symbolic link in the file's place, or on the way to it, is refused; nothing outside is read",
        arguments: [FileConfinement.Resolver.automatic, .walk])
    func symbolicLinks(resolver: FileConfinement.Resolver) throws {
        let layout = try Layout(resolver: resolver)
        defer { layout.folder.remove() }
        layout.replaceDocument { symlink(layout.secret.path, $0) }
        #expect(throws: DataProviderError.outsideConfinement(path: layout.document.path, root: layout.root.path)) {
            try layout.provider().data()
        }
        // A directory on the way swapped for a link to a directory outside.
        let outside = layout.folder.url("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try Fixture.data("metadata.pdf").write(to: outside.appendingPathComponent("doc.pdf"))
        try FileManager.default.removeItem(at: layout.root.appendingPathComponent("inside"))
        #expect(symlink(outside.path, layout.root.appendingPathComponent("inside").path) == 0)
        #expect(throws: DataProviderError.self) { try layout.provider().data() }
        #expect(layout.provider().size == 0)
        // The unconfined provider follows links, as Nutrient's does.
        #expect(try FileDataProvider(fileURL: layout.document).data() == Fixture.data("metadata.pdf"))
    }

    @Test(
        "A path outside the root, or with .. in it, is refused without being opened",
        arguments: [FileConfinement.Resolver.automatic, .walk])
    func outsidePaths(resolver: FileConfinement.Resolver) throws {
        let layout = try Layout(resolver: resolver)
        defer { layout.folder.remove() }
        for path in [layout.secret.path, layout.root.path + "/inside/../../secret.pdf", "/etc/passwd"] {
            let provider = FileDataProvider(fileURL: URL(fileURLWithPath: path), confinement: layout.confinement)
            #expect(throws: DataProviderError.self) { try provider.data() }
        }
        #expect(layout.confinement.contains(layout.document.path))
        #expect(!layout.confinement.contains(layout.secret.path))
    }

    @Test(
        "A FIFO in the file's place is refused at once (never blocks), as is a directory",
        arguments: [FileConfinement.Resolver.automatic, .walk])
    func fifoAndDirectory(resolver: FileConfinement.Resolver) throws {
        let layout = try Layout(resolver: resolver)
        defer { layout.folder.remove() }
        layout.replaceDocument { mkfifo($0, 0o600) }
        #expect(throws: DataProviderError.notRegularFile(path: layout.document.path, kind: "FIFO")) {
            try layout.provider().data()
        }
        // Unconfined too: a FIFO never stalls a reader.
        #expect(throws: DataProviderError.notRegularFile(path: layout.document.path, kind: "FIFO")) {
            try FileDataProvider(fileURL: layout.document).data()
        }
        #expect(unlink(layout.document.path) == 0)
        #expect(mkdir(layout.document.path, 0o700) == 0)
        #expect(throws: DataProviderError.notRegularFile(path: layout.document.path, kind: "directory")) {
            try layout.provider().data()
        }
    }

    @Test(
        "A device in the file's place is refused before a byte is read",
        arguments: [FileConfinement.Resolver.automatic, .walk])
    func device(resolver: FileConfinement.Resolver) throws {
        let layout = try Layout(resolver: resolver)
        defer { layout.folder.remove() }
        let staged = layout.root.appendingPathComponent("inside/staged").path
        // Making a device node needs CAP_MKNOD (root); elsewhere this case cannot be set up.
        let zero = dev_t((1 << 8) | 5)  // makedev(1, 5): /dev/zero, endless bytes if it were ever read
        guard mknod(staged, S_IFCHR | 0o600, zero) == 0 else { return }
        #expect(rename(staged, layout.document.path) == 0)
        #expect(throws: DataProviderError.notRegularFile(path: layout.document.path, kind: "character device")) {
            try layout.provider().data()
        }
    }

    @Test(
        "A file with a second hard link is refused (the other link may be outside the root)",
        arguments: [FileConfinement.Resolver.automatic, .walk])
    func hardLinks(resolver: FileConfinement.Resolver) throws {
        let layout = try Layout(resolver: resolver)
        defer { layout.folder.remove() }
        layout.replaceDocument { link(layout.secret.path, $0) }
        #expect(throws: DataProviderError.multipleLinks(path: layout.document.path, count: 2)) {
            try layout.provider().data()
        }
    }

    // Fails on main (issue 29, item 3): the provider had no way to tell, and no watch heard the link.
    @Test("A file linked, written or replaced since the provider's last read is told apart without reading it")
    func lastLook() throws {
        let layout = try Layout()
        defer { layout.folder.remove() }
        let provider = CoordinatedFileDataProvider(fileURL: layout.document, confinement: layout.confinement)
        #expect(!provider.isUnchangedSinceLastLook)  // nothing read yet
        _ = try provider.data()
        #expect(provider.isUnchangedSinceLastLook)
        let link = layout.folder.url("x")
        #expect(Glibc.link(layout.document.path, link.path) == 0)
        #expect(!provider.isUnchangedSinceLastLook)  // two links: not even opened
        #expect(unlink(link.path) == 0)
        #expect(!provider.isUnchangedSinceLastLook)  // one link again, but its change time moved
        _ = try provider.data()
        #expect(provider.isUnchangedSinceLastLook)
        let handle = try FileHandle(forWritingTo: layout.document)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("%%".utf8))
        try handle.close()
        #expect(!provider.isUnchangedSinceLastLook)  // written in place
        _ = try provider.data()
        layout.replaceDocument { symlink(layout.secret.path, $0) }
        #expect(!provider.isUnchangedSinceLastLook)
        #expect(provider.lastLook != nil)
    }

    // Fails on main (issue 29, item 3): `ln root/doc.pdf /outside/x` gave the presenter no message at all.
    @Test("An observed provider hears of a hard link made to its file from another directory (its inode is watched)")
    func hardLinkIsHeard() throws {
        let layout = try Layout()
        defer { layout.folder.remove() }
        let provider = CoordinatedFileDataProvider(fileURL: layout.document, confinement: layout.confinement)
        let delegate = RecordingDelegate()
        provider.coordinationDelegate = delegate
        _ = try provider.data()
        let coordinator = FilePresenterCoordinator()
        coordinator.observe([provider])
        defer { coordinator.unobserve([provider]) }
        try CoordinationService.synchronize()
        #expect(delegate.calls.stays(atMost: 0))
        let outside = layout.folder.url("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        #expect(Glibc.link(layout.document.path, outside.appendingPathComponent("x").path) == 0)
        #expect(delegate.calls.wait(for: 1))
        #expect(throws: DataProviderError.multipleLinks(path: layout.document.path, count: 2)) {
            try provider.data()
        }
        // Unobserved: its inode is no longer watched.
        coordinator.unobserve([provider])
        #expect(provider.lastLook == .refused(.multipleLinks(path: layout.document.path, count: 2)))
    }

    @Test(
        "Saving through a confined provider writes beneath the root, never through a swapped directory",
        arguments: [FileConfinement.Resolver.automatic, .walk])
    func confinedWrites(resolver: FileConfinement.Resolver) throws {
        let layout = try Layout(resolver: resolver)
        defer { layout.folder.remove() }
        let provider = layout.provider()
        let sink = try provider.createDataSink(options: [])
        #expect(sink.writeData(try Fixture.data("metadata.pdf")) && sink.finish())
        try provider.replaceContents(with: sink)
        #expect(try Data(contentsOf: layout.document) == Fixture.data("metadata.pdf"))
        // Swap the directory for a link to one outside: a new sink or a deletion must not reach it.
        let outside = layout.folder.url("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try Fixture.data("one-page.pdf").write(to: outside.appendingPathComponent("doc.pdf"))
        try FileManager.default.removeItem(at: layout.root.appendingPathComponent("inside"))
        #expect(symlink(outside.path, layout.root.appendingPathComponent("inside").path) == 0)
        #expect(throws: DataProviderError.self) { try provider.createDataSink(options: []) }
        #expect(throws: DataProviderError.self) { try provider.deleteData() }
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path) == ["doc.pdf"])
        #expect(try Data(contentsOf: outside.appendingPathComponent("doc.pdf")) == Fixture.data("one-page.pdf"))
    }
}
