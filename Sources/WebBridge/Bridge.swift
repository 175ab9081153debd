import ConfigFile
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import SystemCalls
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// `HOST:PORT` to listen on (`--listen`): an IPv4 address, a bracketed IPv6 address or a
/// name, and a port.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// Without brackets (what `bind` takes).
    public var host: String
    public var port: Int

    public init?(parsing text: String) {
        guard let parsed = HostAndPort(parsing: text), let port = parsed.port else { return nil }
        host = parsed.host.hasPrefix("[") ? String(parsed.host.dropFirst().dropLast()) : parsed.host
        self.port = port
    }

    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// What `gestured-web.socket` listens on, and `gestured-web` without `--listen`.
    public static let defaults = [ListenAddress(parsing: "127.0.0.1:7412")!, ListenAddress(parsing: "[::1]:7412")!]
}

/// The WebSocket bridge (docs/web.md): HTTP and WebSocket on its listening sockets, one
/// daemon connection per browser. Everything runs on one event loop thread.
public final class Bridge: Sendable {
    private let group: MultiThreadedEventLoopGroup
    private let routes: Routes
    private let settings: SessionSettings
    private let registry: NIOLoopBound<SessionRegistry>
    private let limits: NIOLoopBound<BridgeLimits>
    private let requestTimeout: TimeAmount
    private let listeners: NIOLockedValueBox<[any Channel]> = NIOLockedValueBox([])

    /// - Parameters:
    ///   - socketPath: the daemon's Unix socket.
    ///   - statusChanged: called on the event loop with the number of browsers connected.
    public init(
        routes: Routes, socketPath: String, configuration: WebConfiguration, logger: Logger,
        statusChanged: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.routes = routes
        settings = SessionSettings(
            socketPath: socketPath, clientQueue: configuration.clientQueue, slowClient: configuration.slowClient,
            clientMemory: configuration.clientMemory, logger: logger)
        requestTimeout = .seconds(Int64(configuration.requestTimeout))
        let loop = group.next()
        registry = try! loop.submit { NIOLoopBound(SessionRegistry(changed: statusChanged), eventLoop: loop) }.wait()
        limits = try! loop.submit {
            NIOLoopBound(
                BridgeLimits(
                    maximumConnections: configuration.maxConnections, maximumDaemonConnections: configuration.daemonConnections,
                    memoryLimit: configuration.bridgeMemory, logger: logger),
                eventLoop: loop)
        }.wait()
    }

    /// Listens on `addresses` and on the already listening `descriptors` (from systemd);
    /// returns the addresses listened on. Throws when one cannot be used.
    public func start(addresses: [ListenAddress], descriptors: [CInt]) throws -> [String] {
        var bound: [String] = []
        for descriptor in descriptors {
            try Self.checkListeningStream(descriptor)
            let channel = try bootstrap().withBoundSocket(descriptor).wait()
            listeners.withLockedValue { $0.append(channel) }
            bound.append(channel.localAddress.map(Self.describe) ?? "descriptor \(descriptor)")
        }
        for address in addresses {
            let channel: any Channel
            do {
                channel = try bootstrap().bind(host: address.host, port: address.port).wait()
            } catch {
                throw BridgeError(message: "cannot listen on \(address): \(error)")
            }
            listeners.withLockedValue { $0.append(channel) }
            bound.append(channel.localAddress.map(Self.describe) ?? address.description)
        }
        return bound
    }

    /// Stops listening, sends every browser a close frame with `reason`, and returns once
    /// the connections are closed (or after `grace`).
    public func stop(reason: String, grace: TimeAmount = .seconds(2)) {
        let channels = listeners.withLockedValue { channels in
            defer { channels = [] }
            return channels
        }
        for channel in channels {
            try? channel.close().wait()
        }
        let loop = group.next()
        let registry = registry
        try? loop.submit { registry.value.closeAll(reason: reason) }.wait()
        // Close frames are written at once; the connections close when they are out.
        let deadline = NIODeadline.now() + grace
        while NIODeadline.now() < deadline, (try? loop.submit({ registry.value.count }).wait()) ?? 0 > 0 {
            sleepMicroseconds(10_000)
        }
        try? group.syncShutdownGracefully()
    }

    private func bootstrap() -> ServerBootstrap {
        let routes = routes
        let settings = settings
        let registry = registry
        let limits = limits
        let requestTimeout = requestTimeout
        return ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AcceptPause(limits: limits.value))
                }
            }
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            // A fixed kernel send buffer (the kernel doubles it), not one autotuned up to
            // 4 MiB: a browser that stops reading becomes unwritable after about 100 KiB
            // (this, doubled by the kernel, and NIO's 32 KiB), so the bridge stops reading its requests and pings at once instead of
            // answering megabytes of them first (docs/web.md "Limits"). A live view needs
            // far less: 1 000 lines/s of 200 bytes at a 100 ms round trip is 20 KiB.
            .childChannelOption(ChannelOptions.socketOption(.so_sndbuf), value: Self.socketSendBuffer)
            // NIO's own buffer of unsent data per connection before it counts as unwritable
            // (the default is 64 KiB).
            .childChannelOption(ChannelOptions.writeBufferWaterMark, value: .init(low: 16 << 10, high: 32 << 10))
            // At most 16 KiB read per turn: what a browser sends between two checks of its
            // writability (BrowserSession's read gate) is bounded, so a browser that floods
            // requests without reading gets a few hundred answered, not megabytes.
            .childChannelOption(ChannelOptions.maxMessagesPerRead, value: 1)
            .childChannelOption(ChannelOptions.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 16 << 10))
            .childChannelInitializer { channel in
                guard limits.value.openConnection() else {
                    return channel.close()
                }
                channel.closeFuture.whenComplete { _ in limits.value.closeConnection() }
                return channel.eventLoop.makeCompletedFuture {
                    try Self.configure(
                        channel, routes: routes, settings: settings, registry: registry, limits: limits, requestTimeout: requestTimeout)
                }
            }
    }

    /// An accepted connection: NIO's HTTP/1.1 codec with its WebSocket upgrader in front of
    /// the plain HTTP handler.
    static func configure(
        _ channel: any Channel, routes: Routes, settings: SessionSettings, registry: NIOLoopBound<SessionRegistry>,
        limits: NIOLoopBound<BridgeLimits>, requestTimeout: TimeAmount
    ) throws {
        let peer = channel.remoteAddress.map(describe) ?? "?"
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: maximumRequestSize,
            automaticErrorHandling: true,
            shouldUpgrade: { channel, head in
                channel.eventLoop.makeSucceededFuture(routes.mayUpgrade(head) ? HTTPHeaders() : nil)
            },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(FrameRulesHandler())
                    try channel.pipeline.syncOperations.addHandler(
                        NIOWebSocketFrameAggregator(
                            minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 64, maxAccumulatedFrameSize: maximumRequestSize))
                    try channel.pipeline.syncOperations.addHandler(
                        BrowserSession(settings: settings, registry: registry.value, limits: limits.value, peer: peer))
                }
            }
        )
        let httpHandlerName = "gestured-web.http"
        // Nothing more is read from a connection that does not read what it is sent:
        // pipelined requests cannot pile up responses, nor a browser's frames replies.
        try channel.pipeline.syncOperations.addHandler(BackPressureHandler())
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(
            withServerUpgrade: (
                upgraders: [upgrader],
                completionHandler: { context in
                    context.pipeline.removeHandler(name: httpHandlerName, promise: nil)
                }
            )
        )
        try channel.pipeline.syncOperations.addHandler(
            HTTPHandler(
                routes: routes, socketPath: settings.socketPath, limits: limits.value, requestTimeout: requestTimeout,
                logger: settings.logger), name: httpHandlerName)
    }

    /// Bytes of kernel send buffer per connection (`SO_SNDBUF`).
    static let socketSendBuffer: SocketOptionValue = 32 << 10

    /// The longest request a browser may send in one message: the daemon's own limit for
    /// a request line (docs/protocol.md "Transport").
    static let maximumRequestSize = 64 << 10

    /// `127.0.0.1:7412`, `[::1]:7412`.
    static func describe(_ address: SocketAddress) -> String {
        guard let ip = address.ipAddress, let port = address.port else { return "\(address)" }
        return ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)"
    }

    /// A descriptor from systemd must be a listening stream socket (not, say, a datagram
    /// socket a unit file got wrong).
    static func checkListeningStream(_ descriptor: CInt) throws {
        guard let kind = UnixSocket.kind(of: SystemPackage.FileDescriptor(rawValue: descriptor)) else {
            throw BridgeError(message: "descriptor \(descriptor) from systemd is not a socket")
        }
        guard kind.type == CInt(SOCK_STREAM.rawValue) else {
            throw BridgeError(message: "descriptor \(descriptor) from systemd is not a stream socket (ListenStream=)")
        }
        guard kind.isListening else {
            throw BridgeError(message: "descriptor \(descriptor) from systemd is not listening")
        }
    }
}

/// Out of descriptors (EMFILE, ENFILE) or memory for a socket, `accept` would fail at once
/// again and again while connections wait in the backlog: the listener stops reading (its
/// descriptor leaves epoll) for `pause`, and the first time says so once. NIO's own
/// `AcceptBackoffHandler` only holds back `read()`, which leaves the listener registered:
/// measured, it spun at 30–40 % CPU with 256 connections under a limit of 256 descriptors.
final class AcceptPause: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = any Channel

    static let pause = TimeAmount.seconds(1)

    private let limits: BridgeLimits
    private var paused = false

    init(limits: BridgeLimits) {
        self.limits = limits
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let error = error as? IOError, [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error.errnoCode) else {
            context.fireErrorCaught(error)
            return
        }
        limits.bit(.descriptors, "accept failed (\(error)): the listener pauses for a second each time")
        guard !paused, let options = context.channel.syncOptions else { return }
        paused = true
        try? options.setOption(ChannelOptions.autoRead, value: false)
        let channel = context.channel
        context.eventLoop.assumeIsolated().scheduleTask(in: Self.pause) { [self] in
            paused = false
            try? channel.syncOptions?.setOption(ChannelOptions.autoRead, value: true)
        }
    }
}

/// Why the bridge cannot start, in words for the operator.
public struct BridgeError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public var description: String { message }
}
