import Foundation
import HTTPTypes
import OpenAPIRuntime

/// What every call of ``StoreClient`` through the generated client passes on its way to the transport: the bearer
/// token added; the validators and the password sent as the service reads them; an error answer turned into the
/// one ``StoreClientError`` it stands for; every answer's body bounded.
///
/// swift-openapi-generator percent-encodes header values (it follows OpenAPI 3.0.3 there; 3.0.4 and 3.1.1 say not
/// to, apple/swift-openapi-generator#857), which would send `If-Match: %22…%22`. The service takes entity tags and
/// passwords as they are, so the header fields the client sends are percent-decoded back to the values the caller
/// gave (decoding exactly undoes the generator's encoding).
struct ClientEdge: ClientMiddleware {
    /// The bearer token sent with every request, if any.
    let token: String?
    /// The service's base URL, for the errors' text.
    let server: String
    /// The largest answer body read.
    let maximumBodyBytes: Int

    /// The largest error answer read for its problem details.
    static let maximumProblemBytes = 64 * 1024

    /// The header fields the client sends whose values the generator percent-encodes.
    static let plainFields: [HTTPField.Name] = ["If-Match", "If-None-Match", "X-Document-Password"].map {
        HTTPField.Name($0)!
    }

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        for name in Self.plainFields {
            if let value = request.headerFields[name], let plain = value.removingPercentEncoding {
                request.headerFields[name] = plain
            }
        }
        if let token { request.headerFields[.authorization] = "Bearer \(token)" }
        let (response, responseBody) = try await next(request, body, baseURL)
        guard response.status.code < 400 else {
            var bytes = Data()
            if let responseBody {
                for try await chunk in responseBody {
                    bytes.append(contentsOf: chunk.prefix(Self.maximumProblemBytes - bytes.count))
                    if bytes.count >= Self.maximumProblemBytes { break }
                }
            }
            throw StoreClient.error(
                status: response.status.code, etag: response.headerFields[.eTag], body: bytes,
                path: request.path ?? "")
        }
        guard let responseBody else { return (response, nil) }
        let bounded = HTTPBody(
            BoundedChunks(base: responseBody, limit: maximumBodyBytes, server: server), length: responseBody.length,
            iterationBehavior: responseBody.iterationBehavior)
        return (response, bounded)
    }
}

/// An answer's body that fails with ``StoreClientError/unexpectedResponse(server:reason:)`` once more than `limit`
/// bytes came, however its reader collects it.
struct BoundedChunks: AsyncSequence, Sendable {
    typealias Element = HTTPBody.ByteChunk
    let base: HTTPBody
    let limit: Int
    let server: String

    func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), limit: limit, server: server)
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: HTTPBody.AsyncIterator
        let limit: Int
        let server: String
        var count = 0

        mutating func next() async throws -> HTTPBody.ByteChunk? {
            guard let chunk = try await base.next() else { return nil }
            count += chunk.count
            guard count <= limit else {
                throw StoreClientError.unexpectedResponse(server: server, reason: "its answer exceeds \(limit) bytes")
            }
            return chunk
        }
    }
}

/// RFC 3339 dates as the API carries them: sent in UTC with milliseconds, read with or without fractional seconds.
struct RFC3339Dates: DateTranscoder {
    func encode(_ date: Date) throws -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    func decode(_ text: String) throws -> Date {
        guard let date = Self.date(from: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not an RFC 3339 date: \(text)"))
        }
        return date
    }

    /// The date `text` names in RFC 3339, with or without fractional seconds; nil when it names none. The generated
    /// client reads dates with it, and so does the decoder of events and problems (``StoreClient/jsonDecoder``).
    static func date(from text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
    }
}
