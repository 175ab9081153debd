import GestureProtocol
import NIOCore
import NIOPosix

/// One scrape's question to the daemon: a connection of its own to the Unix socket, the
/// `metrics` request, the reply, the close (docs/metrics.md). Runs on the HTTP connection's
/// event loop and never waits on it: the answer is a future, failed when the daemon cannot
/// be reached, answers something else, or takes longer than `timeout`.
enum MetricsScrape {
    /// How long a scrape waits for the daemon (Prometheus' own default timeout is 10 s).
    static let timeout = TimeAmount.seconds(3)

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func fetch(socketPath: String, on eventLoop: any EventLoop) -> EventLoopFuture<MetricsMessage> {
        let promise = eventLoop.makePromise(of: MetricsMessage.self)
        let timeout = eventLoop.scheduleTask(in: timeout) {
            promise.fail(Failure(description: "gestured did not answer within \(Self.timeout.nanoseconds / 1_000_000_000) s"))
        }
        promise.futureResult.whenComplete { _ in timeout.cancel() }
        ClientBootstrap(group: eventLoop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(DaemonLineDecoder())
                    try channel.pipeline.syncOperations.addHandler(ReplyHandler(promise: promise))
                }
            }
            .connect(unixDomainSocketPath: socketPath)
            .whenComplete { result in
                switch result {
                case .success(let channel):
                    let request = channel.allocator.buffer(bytes: WireEncoder.encode(ClientRequest.metrics))
                    channel.writeAndFlush(request, promise: nil)
                    promise.futureResult.whenComplete { _ in channel.close(promise: nil) }
                case .failure(let error):
                    promise.fail(Failure(description: "cannot connect to gestured at \(socketPath): \(error)"))
                }
            }
        return promise.futureResult
    }

    /// Skips `hello` (and any event), completes the promise with the `metrics` reply.
    private final class ReplyHandler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer

        private let promise: EventLoopPromise<MetricsMessage>

        init(promise: EventLoopPromise<MetricsMessage>) {
            self.promise = promise
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let line = unwrapInboundIn(data)
            let message: ServerMessage
            do {
                message = try WireDecoder.message(line.readableBytesView)
            } catch {
                promise.fail(Failure(description: "gestured sent a line that is not protocol 1: \(error)"))
                return
            }
            switch message {
            case .metrics(let metrics):
                promise.succeed(metrics)
            case .error(let text):
                promise.fail(Failure(description: "gestured refused: \(text)"))
            case .goodbye(let reason):
                promise.fail(Failure(description: "gestured said goodbye: \(reason)"))
            case .hello, .gesture, .activity, .touch, .device, .pong, .status, .overflow, .unknown:
                break
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            promise.fail(Failure(description: "gestured closed the connection"))
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            promise.fail(Failure(description: "the connection to gestured failed: \(error)"))
            context.close(promise: nil)
        }
    }
}
