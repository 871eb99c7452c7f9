import Foundation
import Hummingbird
import HummingbirdCore
import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle

/// The store's application: Hummingbird's `Application`, run as it is when the service binds its host and port,
/// or over the listening socket the supervisor handed over (``InheritedSocketServer``) otherwise, with the same
/// responder, child channels, connection cap, services and `onServerRunning`.
struct StoreApplication<Responder: HTTPResponder>: ApplicationProtocol
where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
    /// The application as Hummingbird runs it.
    let base: Application<Responder>
    /// The listening socket handed over, or nil to bind the configured address.
    let listeningSocket: Int32?
    /// The connection cap (also in `base`'s configuration).
    let connectionCap: ConnectionCap
    /// The child channel over a responder (what `base.server` builds).
    let childChannel: @Sendable (@escaping HTTPChannelHandler.Responder) -> StoreHTTP1Channel

    /// The router's responder.
    var responder: Responder { base.responder }
    /// The HTTP/1 server with the store's handlers.
    var server: HTTPServerBuilder { base.server }
    /// The event loops.
    var eventLoopGroup: any EventLoopGroup { base.eventLoopGroup }
    /// The address, server name and connection cap.
    var configuration: ApplicationConfiguration { base.configuration }
    /// The service's logger.
    var logger: Logger { base.logger }
    /// The store's services (the library, the database clients).
    var services: [any Service] { base.services }
    /// What runs before the server starts (the store adds none).
    var processesRunBeforeServerStart: [@Sendable () async throws -> Void] { base.processesRunBeforeServerStart }

    /// Tells the membership and the executable that the server accepts connections.
    @Sendable func onServerRunning(_ channel: any Channel) async {
        await base.onServerRunning(channel)
    }

    /// Runs Hummingbird's application when it binds; over the handed socket, the same services with
    /// ``InheritedSocketServer`` in place of Hummingbird's server.
    func run() async throws {
        guard let listeningSocket else { return try await base.run() }
        let responder = base.responder
        let serverName = configuration.serverName
        let logger = self.logger
        let server = InheritedSocketServer(
            childChannel: childChannel(Self.respond(responder, serverName: serverName, logger: logger)),
            socket: listeningSocket, connectionCap: connectionCap, eventLoopGroup: eventLoopGroup, logger: logger,
            prelude: processesRunBeforeServerStart, onServerRunning: { await self.onServerRunning($0) })
        let group = ServiceGroup(configuration: .init(services: services + [server], logger: logger))
        try await group.run()
    }

    /// A request's answer as Hummingbird's `ApplicationProtocol.run()` makes it: the context with a request id in
    /// its logger, a 500 for an error the router did not turn into a response, the `Date` and `Server` headers.
    private static func respond(
        _ responder: Responder, serverName: String?, logger: Logger
    ) -> HTTPChannelHandler.Responder {
        { (request, responseWriter: consuming ResponseWriter, channel) in
            var requestLogger = logger
            requestLogger[metadataKey: "hb.request.id"] = .stringConvertible(RequestID())
            let response = try await withLogger(requestLogger) { logger in
                let context = Responder.Context(source: .init(channel: channel, logger: logger))
                var response: Response
                do {
                    response = try await responder.respond(to: request, context: context)
                } catch let error as HTTPParserError {
                    throw error
                } catch {
                    logger.debug("Unrecognised Error", metadata: ["error.type": "\(error)"])
                    response = Response(status: .internalServerError, body: .init())
                }
                response.headers[.date] = HTTPDate.now()
                if let serverName { response.headers[.server] = serverName }
                return response
            }
            do {
                try await responseWriter.write(response: response.head, body: response.body)
            } catch is HTTPParserError {
                // Not rethrown: the channel would answer a parse error with a second response.
                throw ParseErrorWhileWritingResponse()
            }
        }
    }

    /// The request could not be parsed while its response was written: the connection closes.
    struct ParseErrorWhileWritingResponse: Error {}
}
