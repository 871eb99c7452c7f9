// Issue 33's question: should the service's routes be the handlers swift-openapi-generator makes from openapi.yaml,
// served by swift-openapi-hummingbird, instead of Hummingbird routes that write the generated types themselves?
// One process, two listeners, the same answers from memory, nothing of the document store:
//   - "routes" (PORT): Hummingbird routes, as the service has them: `GET /documents/{id}` answers the info's JSON,
//     encoded once (the service keeps it with the document's version); `GET /documents/{id}/content` the PDF's
//     bytes as one buffer.
//   - "generated" (PORT+1): the same two operations as an `APIProtocol` handler registered through
//     swift-openapi-hummingbird: the info is a `Components.Schemas.DocumentInfo` the runtime encodes at each
//     request (the generated answer holds a value, not bytes), the content an `HTTPBody` of the same bytes.
// compare-generated-server.sh runs wrk against both, interleaved.
//   GeneratedServerFloor PDF PORT
// prints "listening PORT" for each listener once it listens, and runs until SIGTERM/SIGINT.
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import OpenAPIHummingbird
import OpenAPIRuntime

let arguments = CommandLine.arguments
guard arguments.count == 3, let port = Int(arguments[2]),
    let pdf = FileManager.default.contents(atPath: arguments[1])
else {
    FileHandle.standardError.write(Data("usage: GeneratedServerFloor PDF PORT\n".utf8))
    exit(64)
}

/// A document's info as the service answers it for a 1-page upload.
let info = Components.Schemas.DocumentInfo(
    id: "0123456789abcdef0123456789abcdef", etag: "\"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855-1\"",
    version: 1, contentEtag: "\"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"", origin: .upload,
    pageCount: 1, pages: [.init(number: 1, width: 612, height: 792, label: nil)],
    metadata: .init(title: "One Page Fixture", producer: "qpdf", creationDate: Date(timeIntervalSince1970: 1_790_000_000)),
    files: [.init(path: "/var/lib/quire/store/0123456789abcdef0123456789abcdef.pdf", size: pdf.count, etag: "\"e3b0\"")],
    state: .clean, conflict: nil, damage: nil, encrypted: false, size: pdf.count,
    createdAt: Date(timeIntervalSince1970: 1_790_000_000), updatedAt: Date(timeIntervalSince1970: 1_790_000_000))
let infoJSON: ByteBuffer = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    return ByteBuffer(bytes: (try? encoder.encode(info)) ?? Data())
}()
let pdfBuffer = ByteBuffer(bytes: pdf)

/// The two operations, as the generated protocol has them (the generator's filter leaves the others out).
struct Handler: APIProtocol {
    let info: Components.Schemas.DocumentInfo
    let pdf: Data

    func getDocument(_ input: Operations.GetDocument.Input) async throws -> Operations.GetDocument.Output {
        .ok(.init(headers: .init(eTag: info.etag), body: .json(info)))
    }

    func getDocumentContent(_ input: Operations.GetDocumentContent.Input) async throws
        -> Operations.GetDocumentContent.Output
    {
        .ok(.init(headers: .init(eTag: info.contentEtag), body: .pdf(HTTPBody(pdf))))
    }
}

/// The routes as the service writes them: bytes made once.
func routes(etag: String, contentEtag: String, infoJSON: ByteBuffer, pdf: ByteBuffer) -> Router<BasicRequestContext> {
    let router = Router()
    router.get("documents/:id") { _, _ in
        Response(
            status: .ok, headers: [.contentType: "application/json", .eTag: etag],
            body: ResponseBody(byteBuffer: infoJSON))
    }
    router.get("documents/:id/content") { _, _ in
        Response(
            status: .ok, headers: [.contentType: "application/pdf", .eTag: contentEtag],
            body: ResponseBody(byteBuffer: pdf))
    }
    return router
}

/// An application on `port` that says when it listens.
func application(_ router: Router<BasicRequestContext>, port: Int) -> Application<RouterResponder<BasicRequestContext>> {
    var logger = Logger(label: "generated-server-floor")
    logger.logLevel = .error
    return Application(
        router: router,
        configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port)),
        onServerRunning: { channel in
            FileHandle.standardOutput.write(Data("listening \(channel.localAddress?.port ?? port)\n".utf8))
        },
        logger: logger)
}

let generated = Router()
try Handler(info: info, pdf: pdf).registerHandlers(on: generated)
let servers = [
    application(routes(etag: info.etag, contentEtag: info.contentEtag, infoJSON: infoJSON, pdf: pdfBuffer), port: port),
    application(generated, port: port + 1),
]
try await withThrowingDiscardingTaskGroup { group in
    for server in servers { group.addTask { try await server.runService() } }
}
