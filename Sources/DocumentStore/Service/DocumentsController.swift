import DocumentModel
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import QuireAPI
import StoreCore

/// The `/documents` routes of `openapi.yaml`, over a ``DocumentLibrary``.
public struct DocumentsController: RouteController {
    private let library: DocumentLibrary
    private let control: ServiceControl
    private let forwarder: OwnerForwarder?

    /// Makes the controller, with a fixed upload limit; a cluster node passes the `forwarder` that sends requests
    /// for the documents other nodes own to them (see ``OwnerForwarder`` for which).
    public init(library: DocumentLibrary, maxUploadBytes: Int, forwarder: OwnerForwarder? = nil) {
        var configuration = library.configuration
        configuration.maxUploadBytes = maxUploadBytes
        self.init(library: library, control: ServiceControl(configuration: configuration), forwarder: forwarder)
    }

    /// Makes the controller, whose upload limit is the one `control` has in force at each request.
    public init(library: DocumentLibrary, control: ServiceControl, forwarder: OwnerForwarder? = nil) {
        self.library = library
        self.control = control
        self.forwarder = forwarder
    }

    /// `/documents`.
    public var mountPath: RouterPath { "/documents" }

    /// Every document route.
    public var routes: RouteCollection<StoreRequestContext> {
        let routes = RouteCollection(context: StoreRequestContext.self)
        routes.add(middleware: StorePathRedactionMiddleware(storeDirectory: library.configuration.storeDirectory))
        routes.get { request, _ in try await list(request) }
        routes.post { request, context in try await create(request, context) }
        routes.get(":id") { request, context in
            let id = try Self.documentID(context)
            // A dirty document's edits, and a conflict, are its owner's to show.
            if let forwarder, try await library.infoNeedsOwner(id),
                let answer = try await forwarder.answer(request, for: id)
            {
                return answer
            }
            // The body is encoded once per version of the document and kept with its info.
            let (json, tag) = try await library.info(id, password: Self.password(request)) { info in
                ByteBuffer(bytes: try DocumentRepresentations.encode(Components.Schemas.DocumentInfo(info)))
            }
            if case .notModified = try RequestPreconditions(headers: request.headers).evaluate(
                current: tag, method: request.method)
            {
                return Response(status: .notModified, headers: [.eTag: tag.headerValue])
            }
            return Response(
                status: .ok,
                headers: [.contentType: "application/json", .cacheControl: "no-cache", .eTag: tag.headerValue],
                body: ResponseBody(byteBuffer: json))
        }
        routes.delete(":id") { request, context in
            let id = try Self.documentID(context)
            if let answer = try await forwarder?.answer(request, for: id) { return answer }
            try await library.delete(id, precondition: RequestPreconditions(headers: request.headers).write)
            return Response(status: .noContent)
        }
        routes.get(":id/content") { request, context in try await content(request, context) }
        routes.put(":id/content") { request, context in
            let id = try Self.documentID(context)
            try Self.requireMediaType(request, ["application/pdf"])
            let preconditions = try RequestPreconditions(headers: request.headers)
            // Refused before the body is streamed when it would be refused after (the owner's lane checks again). An
            // open document's version is known from memory: only a validator it surely refuses costs a catalog read
            // (for the current version the 412 names); otherwise the one read is the lane's.
            if let known = library.knownVersion(of: id) {
                if preconditions.write.ifMatch == nil {
                    try preconditions.requireIfMatch(current: nil, method: .put)  // 428: no version is needed for it
                } else if preconditions.write.isSurelyStale(knownVersion: known) {
                    try preconditions.requireIfMatch(current: try await library.record(id).validator, method: .put)
                }
            } else {
                try preconditions.requireIfMatch(current: try await library.record(id).validator, method: .put)
            }
            // The owner decides, as for every other write: the body streams through to it.
            if let answer = try await forwarder?.answerStreamingBody(of: request, for: id) { return answer }
            let incoming = try await receive(request)
            defer { incoming.discard() }
            let (info, tag) = try await library.replaceContent(
                id, withFileAt: incoming.fileURL, precondition: preconditions.write, password: Self.password(request))
            incoming.take()
            return try Self.respond(info: info, tag: tag, request: request)
        }
        routes.get(":id/pages/:n/text") { request, context in
            let id = try Self.documentID(context)
            let (text, tag) = try await library.pageText(
                id, page: try Self.pageNumber(context), password: Self.password(request))
            return Response(
                status: .ok, headers: [.contentType: "text/plain; charset=utf-8", .eTag: tag.headerValue],
                body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }
        routes.get(":id/pages/:n/image") { request, context in
            let id = try Self.documentID(context)
            let dpiText = request.uri.queryParameters.get("dpi") ?? "144"
            guard let dpi = Int(dpiText) else {
                throw ProblemDetails.invalidParameter(
                    "dpi", "dpi must be a whole number, not \"\(dpiText.prefix(40))\"")
            }
            let page = try Self.pageNumber(context)
            // A clean document's page image is a function of its content (the tag), the page and the resolution:
            // a client that holds the tag gets 304 without a render. A dirty one's has its unsaved edits drawn in,
            // which the tag does not cover: it is always rendered and sent.
            let preconditions = try RequestPreconditions(headers: request.headers)
            if request.headers[.ifNoneMatch] != nil, (1...library.configuration.maxDPI).contains(dpi),
                let record = try? await library.record(id), record.state == .clean, page <= record.pageCount,
                case .notModified = preconditions.evaluate(current: record.validator, method: request.method)
            {
                return Response(status: .notModified, headers: [.eTag: record.validator.headerValue])
            }
            let (png, tag) = try await library.pageImage(id, page: page, dpi: dpi, password: Self.password(request))
            return Response(
                status: .ok, headers: [.contentType: "image/png", .eTag: tag.headerValue],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: png)))
        }
        routes.patch(":id/metadata") { request, context in
            let id = try Self.documentID(context)
            try Self.requireMediaType(request, ["application/merge-patch+json", "application/json"])
            let preconditions = try RequestPreconditions(headers: request.headers)
            let body = try await Self.bodyBuffer(request, limit: context.maxUploadSize)
            if let answer = try await forwarder?.answer(request, for: id, body: body) { return answer }
            let patch = try MetadataPatchParser.parse(Data(buffer: body))
            let (info, tag) = try await library.updateMetadata(
                id, patch, precondition: preconditions.write, password: Self.password(request))
            return try Self.respond(info: info, tag: tag, request: request)
        }
        routes.post(":id/annotations") { request, context in
            let id = try Self.documentID(context)
            try Self.requireMediaType(request, ["application/json"])
            let preconditions = try RequestPreconditions(headers: request.headers)
            let body = try await Self.bodyBuffer(request, limit: context.maxUploadSize)
            if let answer = try await forwarder?.answer(request, for: id, body: body) { return answer }
            let annotation = try Self.decode(Components.Schemas.AnnotationRequest.self, Data(buffer: body))
            let (info, tag) = try await library.addAnnotation(
                id, annotation.newAnnotation, precondition: preconditions.write, password: Self.password(request))
            return try Self.respond(info: info, tag: tag, request: request)
        }
        routes.post(":id/save") { request, context in
            let id = try Self.documentID(context)
            if let answer = try await forwarder?.answer(request, for: id) { return answer }
            let (info, tag) = try await library.save(
                id, precondition: RequestPreconditions(headers: request.headers).write, password: Self.password(request))
            return try Self.respond(info: info, tag: tag, request: request)
        }
        routes.get(":id/conflict") { request, context in
            let id = try Self.documentID(context)
            if let answer = try await forwarder?.answer(request, for: id) { return answer }
            let report = try await library.conflictReport(id, password: Self.password(request))
            return try Self.respond(
                json: Components.Schemas.ConflictReport(report), tag: nil, request: request)
        }
        routes.post(":id/conflict/resolve") { request, context in
            let id = try Self.documentID(context)
            try Self.requireMediaType(request, ["application/json"])
            let bytes = try await Self.bodyBuffer(request, limit: context.maxUploadSize)
            if let answer = try await forwarder?.answer(request, for: id, body: bytes) { return answer }
            let body = try Self.decode(Components.Schemas.ResolveRequest.self, Data(buffer: bytes))
            let resolution: FileConflictResolution =
                switch body.resolution {
                case .reload: .reload
                case .save: .save
                case .close: .close
                }
            guard
                let (info, tag) = try await library.resolve(
                    id, with: resolution, precondition: RequestPreconditions(headers: request.headers).write,
                    password: Self.password(request))
            else {
                return Response(status: .noContent)
            }
            return try Self.respond(info: info, tag: tag, request: request)
        }
        routes.get(":id/versions") { request, context in
            let id = try Self.documentID(context)
            let kept = try await library.versions(id, password: Self.password(request))
            let list = Components.Schemas.VersionList(
                document: id.rawValue, versions: kept.map(Components.Schemas.DocumentVersion.init))
            return try Self.respond(json: list, tag: nil, request: request)
        }
        routes.post(":id/versions/:version/restore") { request, context in
            let id = try Self.documentID(context)
            let version = context.parameters.get("version") ?? ""
            guard !version.isEmpty, version.utf8.count <= 64 else {
                throw ProblemDetails.versionNotFound(id, version)
            }
            if let answer = try await forwarder?.answer(request, for: id) { return answer }
            let (info, tag) = try await library.restoreVersion(
                id, version: version, precondition: RequestPreconditions(headers: request.headers).write,
                password: Self.password(request))
            return try Self.respond(info: info, tag: tag, request: request)
        }
        return routes
    }

    // MARK: routes with more to do

    /// `GET /documents`: one page (`limit`, default 100, at most 1,000), from `cursor`, filtered by `state` and
    /// `updatedSince`; `next` (and a `Link: …; rel="next"` header) names the following page, null on the last.
    private func list(_ request: Request) async throws -> Response {
        let items = request.uri.queryParameters.map { (name: String($0.key), value: String($0.value)) }
        let listing = try ListingQuery.listing(items, cursors: library.listingCursors)
        let page = try await library.list(listing)
        let next = page.next.map { library.listingCursors.seal($0, for: listing) }
        let list = Components.Schemas.DocumentList(
            documents: page.documents.map(Components.Schemas.DocumentSummary.init), next: next)
        var headers: HTTPFields = [.contentType: "application/json", .cacheControl: "no-store"]
        if let next {
            headers[HTTPField.Name("Link")!] = "<\(Self.nextPageLink(listing: listing, cursor: next))>; rel=\"next\""
        }
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: try DocumentRepresentations.encode(list))))
    }

    /// The relative URL of the page after `listing`'s, with the same limit and filters.
    static func nextPageLink(listing: DocumentListing, cursor: String) -> String {
        var query = ["limit=\(listing.limit)"]
        query += listing.states.sorted().map { "state=\($0.rawValue)" }
        if let since = listing.updatedSince { query.append("updatedSince=" + timestamp(since)) }
        query.append("cursor=" + cursor)  // base64url and '.': nothing to escape
        return "/documents?" + query.joined(separator: "&")
    }

    private func create(_ request: Request, _ context: StoreRequestContext) async throws -> Response {
        let mediaType = Self.mediaType(request)
        let password = Self.password(request)
        let created: (DocumentInfo, EntityTag)
        switch mediaType {
        case "application/pdf":
            let incoming = try await receive(request)
            defer { incoming.discard() }
            created = try await library.upload(fileAt: incoming.fileURL, password: password)
            incoming.take()
        case "application/json":
            let register = try Self.decode(
                Components.Schemas.RegisterRequest.self, try await Self.body(request, limit: context.maxUploadSize)
            )
            let registered = try await library.register(register.files, password: password)
            guard registered.isNew else {
                var response = try Self.respond(info: registered.info, tag: registered.tag, request: request)
                response.headers[.location] = "/documents/\(registered.info.id.rawValue)"
                return response
            }
            created = (registered.info, registered.tag)
        default:
            throw ProblemDetails.unsupportedMediaType(mediaType, expected: ["application/pdf", "application/json"])
        }
        var response = try Self.respond(info: created.0, tag: created.1, request: request)
        response.status = .created
        response.headers[.location] = "/documents/\(created.0.id.rawValue)"
        return response
    }

    private func content(_ request: Request, _ context: StoreRequestContext) async throws -> Response {
        let id = try Self.documentID(context)
        let (bytes, tag) = try await library.content(
            id, password: Self.password(request), as: DocumentLibrary.contentBody)
        let preconditions = try RequestPreconditions(headers: request.headers)
        switch preconditions.evaluate(current: tag, method: request.method) {
        case .notModified: return Response(status: .notModified, headers: [.eTag: tag.headerValue])
        case .preconditionFailed:
            throw ProblemDetails.preconditionFailed(current: tag, detail: "the document's tag is \(tag.headerValue)")
        case .proceed: break
        }
        var headers: HTTPFields = [.contentType: "application/pdf", .eTag: tag.headerValue, .acceptRanges: "bytes"]
        let length = bytes.readableBytes
        switch ByteRange.select(rangeHeader: request.headers[.range], completeLength: length) {
        case .whole:
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: bytes))
        case .partial(let range):
            headers[.contentRange] = range.contentRange(completeLength: length)
            let slice = bytes.getSlice(at: bytes.readerIndex + range.first, length: range.count) ?? ByteBuffer()
            return Response(status: .partialContent, headers: headers, body: ResponseBody(byteBuffer: slice))
        case .unsatisfiable:
            throw ProblemDetails.rangeNotSatisfiable(completeLength: length)
        }
    }

    /// Streams a PDF body into the store's incoming directory: a declared length above the limit is refused
    /// before any body byte is read (the connection then closes: ``ConnectionDeadlineHandler``).
    private func receive(_ request: Request) async throws -> IncomingUpload {
        let declared = request.headers[.contentLength].map { Int($0.trimmingCharacters(in: .whitespaces)) ?? .max }
        return try await library.receiveUpload(request.body, declaredLength: declared, limit: control.maxUploadBytes)
    }

    // MARK: helpers

    /// A response with a document's info as its JSON body, and the document's tag.
    static func respond(info: DocumentInfo, tag: EntityTag, request: Request) throws -> Response {
        try respond(json: Components.Schemas.DocumentInfo(info), tag: tag, request: request)
    }

    /// A JSON response with the document's tag.
    static func respond(json value: some Encodable, tag: EntityTag?, request: Request) throws -> Response {
        var headers: HTTPFields = [.contentType: "application/json", .cacheControl: "no-cache"]
        if let tag { headers[.eTag] = tag.headerValue }
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: try DocumentRepresentations.encode(value))))
    }

    static func documentID(_ context: StoreRequestContext) throws -> DocumentID {
        let text = context.parameters.get("id") ?? ""
        guard let id = DocumentID(rawValue: text) else { throw ProblemDetails.invalidID(text) }
        return id
    }

    static func pageNumber(_ context: StoreRequestContext) throws -> Int {
        let text = context.parameters.get("n") ?? ""
        guard let number = Int(text), number >= 1 else {
            throw ProblemDetails.invalidParameter(
                "n", "the page number must be a whole number from 1, not \"\(text.prefix(40))\"")
        }
        return number
    }

    static func password(_ request: Request) -> String? {
        request.headers[HTTPField.Name("X-Document-Password")!]
    }

    /// The body's media type without parameters, lowercased.
    static func mediaType(_ request: Request) -> String? {
        request.headers[.contentType].map {
            $0.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        }
    }

    static func requireMediaType(_ request: Request, _ accepted: [String]) throws {
        let mediaType = mediaType(request)
        guard let mediaType, accepted.contains(mediaType) else {
            throw ProblemDetails.unsupportedMediaType(mediaType, expected: accepted)
        }
    }

    /// The whole body, at most `limit` bytes (413 above).
    static func body(_ request: Request, limit: Int) async throws -> Data {
        Data(buffer: try await bodyBuffer(request, limit: limit))
    }

    /// The request's body, at most `limit` bytes.
    /// - Throws: 413 problem details above the limit.
    static func bodyBuffer(_ request: Request, limit: Int) async throws -> ByteBuffer {
        var request = request
        do {
            return try await request.collectBody(upTo: limit)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw ProblemDetails.contentTooLarge(limit: limit)
        }
    }

    /// Decodes a JSON body of a closed schema.
    /// - Throws: 400 naming the member that is unknown, missing or of the wrong type, or saying the body is not
    ///   a JSON object.
    static func decode<T: JSONRequestBody>(_ type: T.Type, _ data: Data) throws -> T {
        try T.decode(data)
    }
}
