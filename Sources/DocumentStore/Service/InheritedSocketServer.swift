import HummingbirdCore
import Logging
import NIOCore
import NIOExtras
import NIOPosix
import ServiceLifecycle

/// Hummingbird's server (`HummingbirdCore.Server`) over a listening socket the supervisor handed over
/// (systemd's socket activation) instead of one it binds: the same bootstrap options, the same server-channel
/// handlers (the connection cap, then the quiescing helper), the same child channels and the same graceful
/// shutdown (stop accepting, let each connection finish its request, then close it).
///
/// Hummingbird 2.28's `Server` binds only what `BindAddress` names (a host and port or a socket path), and a
/// child channel cannot supply a server of its own (`ServerChildChannel.server(…)` is an extension method, not a
/// requirement); this is the part of `Server.run()` that differs, over NIO's `ServerBootstrap.bind(_:)` for an
/// existing socket.
struct InheritedSocketServer<ChildChannel: ServerChildChannel>: Service {
    /// How each accepted connection is set up and served.
    let childChannel: ChildChannel
    /// The listening socket (already listening; closed when the server stops).
    let socket: Int32
    /// The connection cap, if any.
    let connectionCap: (any AvailableConnectionsDelegate)?
    /// The event loops.
    let eventLoopGroup: any EventLoopGroup
    /// The server's logger.
    let logger: Logger
    /// What runs, in order, before the socket is served (the application's `processesRunBeforeServerStart`).
    let prelude: [@Sendable () async throws -> Void]
    /// Called once the socket's channel is registered and accepts connections.
    let onServerRunning: @Sendable (any Channel) async -> Void

    func run() async throws {
        for process in prelude { try await process() }
        let quiescing = ServerQuiescingHelper(group: eventLoopGroup)
        let cap = connectionCap
        let bootstrap = ServerBootstrap(group: eventLoopGroup)
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let cap {
                        try channel.pipeline.syncOperations.addHandler(Self.capHandler(cap))
                    }
                    try channel.pipeline.syncOperations.addHandler(quiescing.makeServerChannelHandler(channel: channel))
                }
            }
        let (childChannel, logger) = (childChannel, logger)
        let server: NIOAsyncChannel<ChildChannel.Value, Never> = try await bootstrap.bind(
            socket, serverBackPressureStrategy: nil
        ) { channel in
            childChannel.setup(channel: channel, logger: logger)
        }
        let address = server.channel.localAddress.map { "\($0)" } ?? "address unknown"
        logger.info("Server started and listening on the socket handed over (descriptor \(socket), \(address))")
        await withGracefulShutdownHandler {
            await onServerRunning(server.channel)
            await withDiscardingTaskGroup { group in
                do {
                    try await server.executeThenClose { inbound in
                        for try await connection in inbound {
                            group.addTask { await childChannel.handle(value: connection, logger: logger) }
                        }
                    }
                } catch {
                    logger.error("Waiting on child channel: \(error)")
                }
            }
        } onGracefulShutdown: {
            quiescing.initiateShutdown(promise: nil)
        }
    }

    /// Hummingbird's handler for the connection cap (opened existentially).
    private static func capHandler(_ cap: some AvailableConnectionsDelegate) -> any ChannelHandler {
        AvailableConnectionsChannelHandler(delegate: cap)
    }
}
