import ArgumentParser
import CQuireLinux
import Foundation
import PDFWorkerWire
import Poppler

#if canImport(Glibc)
    import Glibc
#endif

/// `quire-pdf worker`: a PDF worker process of the document-store service. It answers requests that arrive on
/// descriptor 3 (a `SOCK_SEQPACKET` socket), one at a time, each with its PDF attached as a sealed memfd, and
/// sends each result back in a memfd of its own. It never opens a file by path. The service starts it, kills
/// it when a request outlives its deadline, and starts another; it exits when the service goes away.
struct Worker: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Serve the document-store service's PDF requests on descriptor 3 (the service starts it).",
        shouldDisplay: false
    )

    @Option(name: .customLong("memory-limit"), help: "The most address space this process may map, in MiB.")
    var memoryLimitMiB: Int = 2048

    /// The sandbox's options; it is entered after `confine` and before the first request (WorkerSandbox.swift).
    @OptionGroup var sandbox: WorkerSandbox

    func run() throws {
        let loop = PDFWorkerLoop(socket: 3)
        loop.confine(memoryLimitMiB: memoryLimitMiB)
        sandbox.enter()
        loop.serve()
    }
}

/// The worker's request loop.
struct PDFWorkerLoop {
    /// The socket to the service.
    let socket: Int32

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

    /// Answers requests until the service closes the socket.
    func serve() -> Never {
        var packet = [UInt8](repeating: 0, count: PDFWorkerMessage.maximumPacketSize)
        while true {
            var attached: Int32 = -1
            let count = packet.withUnsafeMutableBytes { buffer in
                CQuire_receiveWithDescriptor(socket, buffer.baseAddress, buffer.count, &attached)
            }
            if count == 0 { exit(0) }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EBADMSG {
                    send(PDFWorkerReply(status: .failed, message: "the request had more than one descriptor"))
                    continue
                }
                exit(0)
            }
            let reply: (PDFWorkerReply, Int32)
            do {
                let request = try PDFWorkerRequest(decoding: Array(packet[0..<count]))
                reply = answer(request, pdf: attached)
            } catch {
                reply = (PDFWorkerReply(status: .failed, message: "the request was refused: \(error)"), -1)
            }
            if attached >= 0 { close(attached) }
            send(reply.0, attaching: reply.1)
            if reply.1 >= 0 { close(reply.1) }
        }
    }

    private func send(_ reply: PDFWorkerReply, attaching descriptor: Int32 = -1) {
        let bytes = reply.encoded()
        while true {
            let sent = bytes.withUnsafeBytes { CQuire_sendWithDescriptor(socket, $0.baseAddress, $0.count, descriptor) }
            if sent >= 0 { return }
            if errno == EINTR { continue }
            exit(0)  // the service is gone
        }
    }

    /// Performs a request on the attached PDF: the reply and the result's memfd (or -1).
    private func answer(_ request: PDFWorkerRequest, pdf descriptor: Int32) -> (PDFWorkerReply, Int32) {
        guard descriptor >= 0, let data = Self.readAll(descriptor) else {
            return (PDFWorkerReply(status: .failed, message: "no readable PDF was attached to the request"), -1)
        }
        let result: Data
        do {
            let document = try PDFDocument(data: data, password: request.password)
            let page = Int(request.pageIndex)
            switch request.operation {
            case .renderPNG: result = try document.renderPNG(pageAt: page, dpi: Double(request.dpi))
            case .text: result = Data(try document.text(ofPageAt: page).utf8)
            case .probe:
                // What the service does when it opens a document: every page's size and label.
                for index in 0..<document.pageCount { _ = try document.pageInfo(at: index) }
                result = Data(String(document.pageCount).utf8)
            }
        } catch {
            return (PDFWorkerReply(status: Self.status(of: error), message: error.description), -1)
        }
        let output = result.withUnsafeBytes { CQuire_memfdWith("quire-result", $0.baseAddress, $0.count, 0) }
        guard output >= 0 else {
            return (PDFWorkerReply(status: .failed, message: "the result could not be written: errno \(errno)"), -1)
        }
        return (PDFWorkerReply(status: .succeeded, resultLength: UInt64(result.count)), output)
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
        let size = CQuire_regularFileSize(descriptor)
        guard size >= 0 else { return nil }
        var data = Data(count: Int(size))
        let read = data.withUnsafeMutableBytes { CQuire_readExactly(descriptor, $0.baseAddress, $0.count) }
        return read == 0 ? data : nil
    }
}
