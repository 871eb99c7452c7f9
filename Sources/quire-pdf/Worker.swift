import ArgumentParser
import CQuireLinux
import QuireSystem
import Foundation
import PDFWorkerWire
import Poppler

#if canImport(Glibc)
    import Glibc
#endif

/// `quire-pdf worker`: a PDF worker process of the document-store service. It answers requests that arrive on
/// descriptor 3 (a `SOCK_SEQPACKET` socket), one at a time, each with its PDF attached as a sealed memfd (and
/// the document's unsaved edits as a second one, applied before the operation), and sends each result back in a
/// memfd of its own. It keeps nothing between requests. It never opens a file by path. The service starts it, kills
/// it when a request outlives its deadline, and starts another; it exits when the service goes away.
struct Worker: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Serve the document-store service's PDF requests on descriptor 3 (the service starts it).",
        shouldDisplay: false
    )

    @Option(name: .customLong("memory-limit"), help: "The most address space this process may map, in MiB.")
    var memoryLimitMiB: Int = 2048

    @Option(
        name: .customLong("poll-microseconds"),
        help: "How long to poll for the next request before sleeping, in microseconds (0 to 100000).")
    var pollMicroseconds: Int = 1500

    @Flag(
        name: .customLong("background-priority"),
        help: "Run at nice 19, the lowest priority of the normal policy (the search index's workers).")
    var backgroundPriority = false

    @Option(
        name: .customLong("text-threads"),
        help: "How many threads extract the pages of one texts request (1 to 64; the search index's workers).")
    var textThreads: Int = 1

    /// The sandbox's options; it is entered after `confine` and before the first request (WorkerSandbox.swift).
    @OptionGroup var sandbox: WorkerSandbox

    func run() throws {
        let loop = PDFWorkerLoop(
            socket: 3, poll: .microseconds(max(0, min(pollMicroseconds, 100_000))),
            textThreads: max(1, min(textThreads, 64)))
        loop.confine(memoryLimitMiB: memoryLimitMiB)
        if backgroundPriority, CQuire_setBackgroundPriority() != 0 {
            // The service relies on it: a background worker at normal priority would take processors from requests.
            let reason = String(cString: strerror(errno))
            FileHandle.standardError.write(
                Data("quire-pdf worker: cannot take the background priority (nice 19: \(reason)); refusing to serve\n".utf8))
            Glibc.exit(70)
        }
        sandbox.enter()
        loop.serve()
    }
}

/// The worker's request loop.
struct PDFWorkerLoop {
    /// The socket to the service.
    let socket: Int32
    /// The longest an idle worker polls for its next request before it sleeps in `recvmsg`: the next request of
    /// a busy document usually comes within a millisecond, and a worker whose processor halted costs 40-50 µs to
    /// wake on this kind of virtual machine (`workers.idlePollMicroseconds`, default 1.5 ms). The window adapts
    /// below it (``serve()``).
    let poll: Duration
    /// How many threads (each with an instance of the document of its own, kept open with it) extract the pages
    /// of one ``PDFWorkerRequest/Operation/texts`` request (`--text-threads`).
    let textThreads: Int
    /// The documents this worker opened lately.
    private let opened = OpenedDocuments()

    /// Limits the process before any request: no new privileges, killed with its parent, bounded memory and
    /// descriptors.
    func confine(memoryLimitMiB: Int) {
        _ = CQuire_setNoNewPrivileges()
        _ = CQuire_setParentDeathSignal(SIGKILL)
        if getppid() == 1 { exit(0) }  // the service is already gone
        var memory = rlimit(rlim_cur: rlim_t(memoryLimitMiB) << 20, rlim_max: rlim_t(memoryLimitMiB) << 20)
        _ = setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &memory)
        var files = rlimit(rlim_cur: 64, rlim_max: 64)
        _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &files)
        var core = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &core)
    }

    /// Answers requests until the service closes the socket. Between requests the worker polls for the next one
    /// for a window that adapts to what polling catches (``AdaptivePollWindow``, at most `poll`): a worker whose
    /// requests come back to back keeps polling, one whose next request is far off (the service busy with other
    /// work, or idle) soon sleeps at once and leaves the processor to others.
    func serve() -> Never {
        var packet = [UInt8](repeating: 0, count: PDFWorkerMessage.maximumPacketSize)
        var window = AdaptivePollWindow(maximum: poll)
        while true {
            let waiting = ContinuousClock.now
            let (caught, processorTime) = SystemCall.pollWithoutSleepingMeasured(socket, for: window.current)
            var attached: [Int32] = [-1, -1]
            var count: Int32 = 0
            let received = packet.withUnsafeMutableBytes { buffer in
                Result { () throws(SystemCallError) in
                    try SystemCall.retryingOnInterrupt("recvmsg") {
                        CQuire_receiveWithDescriptors(socket, buffer.baseAddress, buffer.count, &attached, 2, &count)
                    }
                }
            }
            let length: Int
            switch received {
            case .success(let value): length = value
            case .failure(let error):
                if error.errno == EBADMSG {
                    send(PDFWorkerReply(status: .failed, message: "the request was malformed (too long, or too many descriptors)"))
                    continue
                }
                exit(0)
            }
            if length == 0 { exit(0) }
            window.record(caught: caught, after: ContinuousClock.now - waiting, processorTime: processorTime)
            let descriptors = Array(attached.prefix(Int(count)))
            let reply: (PDFWorkerReply, Int32)
            do {
                let request = try PDFWorkerRequest(decoding: Array(packet[0..<length]))
                reply = answer(request, descriptors: descriptors)
            } catch {
                reply = (PDFWorkerReply(status: .failed, message: "the request was refused: \(error)"), -1)
            }
            for descriptor in descriptors { close(descriptor) }
            send(reply.0, attaching: reply.1)
            if reply.1 >= 0 { close(reply.1) }
        }
    }

    private func send(_ reply: PDFWorkerReply, attaching descriptor: Int32 = -1) {
        let bytes = reply.encoded()
        let sent = bytes.withUnsafeBytes { raw in
            try? SystemCall.retryingOnInterrupt("sendmsg") {
                CQuire_sendWithDescriptor(socket, raw.baseAddress, raw.count, descriptor)
            }
        }
        if sent == nil { exit(0) }  // the service is gone
    }

    /// Performs a request on the attached PDF (and edit log): the reply and the result's memfd (or -1).
    private func answer(_ request: PDFWorkerRequest, descriptors: [Int32]) -> (PDFWorkerReply, Int32) {
        let expected = request.editsLength > 0 ? 2 : 1
        guard descriptors.count == expected else {
            return (PDFWorkerReply(status: .failed, message: "no PDF (or edit log) was attached"), -1)
        }
        var log: [UInt8] = []
        var edits: [PDFWorkerEdit] = []
        if request.editsLength > 0 {
            guard let bytes = Self.readAll(descriptors[1]), bytes.count == Int(request.editsLength),
                let decoded = try? PDFWorkerEdit.decode(Array(bytes))
            else {
                return (PDFWorkerReply(status: .failed, message: "the attached edit log is not readable"), -1)
            }
            log = Array(bytes)
            edits = decoded
        }
        let result: Data
        do throws(PDFError) {
            let key = Self.key(of: descriptors[0], password: request.password, log: log)
            let document = try openedDocument(descriptors[0], key: key, password: request.password, edits: edits)
            let page = Int(request.pageIndex)
            switch request.operation {
            case .renderPNG: result = try document.renderPNG(pageAt: page, dpi: Double(request.dpi))
            case .text: result = Data(try document.text(ofPageAt: page).utf8)
            case .probe: result = Data(try Self.summary(of: document).encoded())
            case .find:
                let rects = try document.find(request.argument, onPageAt: page, caseSensitive: request.caseSensitive)
                result = Data(PDFWorkerRects.encode(rects.map { ($0.x, $0.y, $0.width, $0.height) }))
            case .save: return try Self.save(document)
            case .texts:
                let count = Int(request.pageCount)
                guard count >= 1, page + count <= document.pageCount else {
                    throw PDFError.pageOutOfRange(page + max(count, 1) - 1)
                }
                let documents = try [document]
                    + extraInstances(
                        min(textThreads, count) - 1, of: descriptors[0], key: key, password: request.password)
                let texts = try PDFTextExtractor.text(ofPages: Array(page..<page + count), in: documents)
                result = Data(PDFWorkerTexts.encode(texts))
            }
        } catch {
            return (PDFWorkerReply(status: Self.status(of: error), message: error.description), -1)
        }
        return Self.reply(with: result)
    }

    /// A successful reply carrying `result`: inline when it is small, else in a memfd of its own.
    private static func reply(with result: Data) -> (PDFWorkerReply, Int32) {
        if result.count <= PDFWorkerMessage.maximumInlineResult {
            return (.succeeded(inline: Array(result)), -1)  // small: in the reply itself, no memfd
        }
        let output: Int32
        do {
            output = try result.withUnsafeBytes { bytes in
                try SystemCall.memoryFile(name: "quire-result", contents: bytes, sealed: false)
            }
        } catch {
            return (PDFWorkerReply(status: .failed, message: "the result could not be written: \(error)"), -1)
        }
        return (PDFWorkerReply(status: .succeeded, resultLength: UInt64(result.count)), output)
    }

    /// The PDF in `descriptor` opened with `password` and the edits applied: the one opened for an earlier
    /// request when the descriptor is the same sealed memfd (whose content cannot have changed) with the same
    /// password and edit log, else a new one.
    /// - Throws: `PDFError` from opening or editing; `.operationFailed` when the descriptor cannot be read.
    private func openedDocument(
        _ descriptor: Int32, key: OpenedDocuments.Key?, password: String?, edits: [PDFWorkerEdit]
    ) throws(PDFError) -> PDFDocument {
        if let key, let document = opened.document(for: key) { return document }
        guard let data = Self.readAll(descriptor) else {
            throw .operationFailed(operation: "reading the attached PDF", reason: "it is not a readable memfd")
        }
        let document = try PDFDocument(data: data, password: password)
        for edit in edits { try Self.apply(edit, to: document) }
        if let key { opened.insert(document, for: key, holding: descriptor) }
        return document
    }

    /// What identifies the document in `descriptor` opened with `password` and the edit `log`: nil when the
    /// memfd is not sealed (its content could change, so nothing opened from it is kept).
    static func key(of descriptor: Int32, password: String?, log: [UInt8]) -> OpenedDocuments.Key? {
        var device: UInt64 = 0
        var inode: UInt64 = 0
        guard CQuire_sealedIdentity(descriptor, &device, &inode) == 0 else { return nil }
        return OpenedDocuments.Key(device: device, inode: inode, password: password, edits: log)
    }

    /// `wanted` more instances of the document just opened from `descriptor` under `key` (those kept with it, and
    /// new ones kept with them): none when it has edits (each instance would need them applied) or no key (its
    /// memfd is not sealed). A one-page request wants none: a second instance of a short document would cost its
    /// worker an open for nothing.
    /// - Throws: `PDFError` from opening an instance.
    private func extraInstances(
        _ wanted: Int, of descriptor: Int32, key: OpenedDocuments.Key?, password: String?
    ) throws(PDFError) -> [PDFDocument] {
        guard wanted > 0, let key, key.edits.isEmpty else { return [] }
        var instances = opened.extraInstances(for: key)
        guard instances.count < wanted, let data = Self.readAll(descriptor) else { return Array(instances.prefix(wanted)) }
        while instances.count < wanted { instances.append(try PDFDocument(data: data, password: password)) }
        opened.keep(instances, for: key)
        return instances
    }

    /// The document with its edits written straight into a memfd (no path, no copy), as a reply.
    /// - Throws: `PDFError` when poppler cannot write it.
    static func save(_ document: PDFDocument) throws(PDFError) -> (PDFWorkerReply, Int32) {
        let output: Int32
        do {
            output = try SystemCall.memoryFile(
                name: "quire-result", contents: UnsafeRawBufferPointer(start: nil, count: 0), sealed: false)
        } catch {
            throw .operationFailed(operation: "saving the document", reason: "no memfd: \(error)")
        }
        do {
            try document.write(toDescriptor: output)
        } catch {
            close(output)
            throw error
        }
        let size = CQuire_regularFileSize(output)
        guard size > 0 else {
            close(output)
            throw .operationFailed(operation: "saving the document", reason: "poppler wrote nothing")
        }
        return (PDFWorkerReply(status: .succeeded, resultLength: UInt64(size)), output)
    }

    /// Every page's size and label, and the metadata: what the service shows of a document it opened.
    static func summary(of document: PDFDocument) throws(PDFError) -> PDFWorkerSummary {
        var pages: [PDFWorkerSummary.Page] = []
        for index in 0..<document.pageCount {
            let info = try document.pageInfo(at: index)
            pages.append(.init(width: info.size.width, height: info.size.height, label: info.label))
        }
        return PDFWorkerSummary(isEncrypted: document.isEncrypted, pages: pages, metadata: document.metadata)
    }

    /// Applies one unsaved edit of the service's document.
    static func apply(_ edit: PDFWorkerEdit, to document: PDFDocument) throws(PDFError) {
        switch edit {
        case .setMetadata(let metadata):
            document.metadata = metadata
        case .addAnnotation(let kind, let page, let x, let y, let width, let height, let contents):
            let annotation = PDFAnnotation(
                kind: kind == 1 ? .note : .highlight, rect: PDFRect(x: x, y: y, width: width, height: height),
                contents: contents)
            try document.addAnnotation(annotation, toPageAt: Int(page))
        }
    }

    static func status(of error: PDFError) -> PDFWorkerReply.Status {
        switch error {
        case .encrypted: return .passwordRequired
        case .empty, .damaged, .invalid: return .damaged
        case .pageOutOfRange: return .pageOutOfRange
        case .invalidResolution, .imageTooLarge, .invalidArgument: return .invalidArgument
        case .annotationOutOfRange, .operationFailed: return .failed
        }
    }

    /// The whole content of a memfd (its size as `fstat` gives it).
    static func readAll(_ descriptor: Int32) -> Data? {
        Data(memoryFile: descriptor)
    }
}

/// The last few documents a worker opened, by the identity of the sealed memfd they came in and the password
/// and edits applied: the service sends a document's bytes in the same memfd with every request, so its next
/// request finds the document already open. A cache only: a new worker starts empty and loses nothing.
final class OpenedDocuments {
    /// What identifies an opened document.
    struct Key: Equatable {
        var device: UInt64
        var inode: UInt64
        var password: String?
        var edits: [UInt8]
    }

    /// How many documents are kept open.
    static let capacity = 2
    /// Each entry holds a duplicate of its memfd, so that its inode (the key) is not freed and given to another
    /// memfd while the entry lives, and the further instances a texts request opened for its other threads.
    private var entries: [(key: Key, document: PDFDocument, held: Int32, extra: [PDFDocument])] = []

    /// The document opened for `key`, made the most recent.
    func document(for key: Key) -> PDFDocument? {
        guard let index = entries.firstIndex(where: { $0.key == key }) else { return nil }
        let entry = entries.remove(at: index)
        entries.append(entry)
        return entry.document
    }

    /// The further instances kept for `key` (none when there is no entry for it).
    func extraInstances(for key: Key) -> [PDFDocument] {
        entries.first(where: { $0.key == key })?.extra ?? []
    }

    /// Keeps `instances` with the entry for `key` (nothing when there is none: they are dropped after use).
    func keep(_ instances: [PDFDocument], for key: Key) {
        guard let index = entries.firstIndex(where: { $0.key == key }) else { return }
        entries[index].extra = instances
    }

    /// Keeps `document` for `key` (holding a duplicate of `descriptor`), dropping the least recent beyond the
    /// capacity. Nothing is kept when the descriptor cannot be duplicated.
    func insert(_ document: PDFDocument, for key: Key, holding descriptor: Int32) {
        let held = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard held >= 0 else { return }
        entries.append((key, document, held, []))
        while entries.count > Self.capacity { close(entries.removeFirst().held) }
    }
}
