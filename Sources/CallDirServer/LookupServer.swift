#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import CallDirNumbers
import CallDirReader

/// The daemon: binds, loads the index, watches for replacements, and stops gracefully.
///
///     let server = try LookupServer(configuration: config, logger: logger)
///     try server.start()          // listening; the index is loaded and verified
///     server.waitUntilStopped()   // returns after SIGTERM/SIGINT (or `stop()`) and draining
public final class LookupServer: Sendable {
    package let configuration: ServerConfiguration
    package let holder: IndexHolder
    package let metrics: Metrics
    package let watcher: ReloadWatcher
    private let logger: Logger
    private let router: Router
    private let group: MultiThreadedEventLoopGroup
    private let connections = Mutex<[ObjectIdentifier: any Channel]>([:])
    private let serverChannel = Mutex<(any Channel)?>(nil)
    private let stopping = Mutex(false)
    private let stopped: EventLoopPromise<Void>

    /// A server for `configuration`, not yet listening (`start()`); throws when its country is unknown.
    public init(configuration: ServerConfiguration, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        metrics = Metrics()
        holder = IndexHolder(path: configuration.indexPath, metrics: metrics, logger: logger)
        watcher = ReloadWatcher(holder: holder)
        router = Router(holder: holder, metrics: metrics, limits: configuration.limits,
                        normalizer: try NumberNormalizer(country: configuration.country, region: configuration.region, lenient: !configuration.checksNANP),
                        policy: configuration.policy)
        group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, configuration.threads))
        stopped = group.next().makePromise()
    }

    /// The bound port (useful with port 0).
    public var port: Int { serverChannel.withLock { $0?.localAddress?.port } ?? 0 }

    /// Binds, starts the watcher (signal handlers registered before this goes on), then loads
    /// and verifies the index (answering 503 until it is ready). A missing or damaged index at start is logged and waited for: the server
    /// stays up, unready, until a good file appears; with `requireIndex`, it is stopped and
    /// `start()` throws the reason instead.
    public func start() throws {
        let channel: any Channel
        do {
            channel = try bind()
        } catch {
            stopped.succeed()  // nothing to wait for
            try? group.syncShutdownGracefully()
            let reason = (error as? IOError).map { String(cString: strerror($0.errnoCode)) } ?? "\(error)"
            throw CallDirError(.io, "cannot listen on \(configuration.host):\(configuration.port): \(reason)")
        }
        serverChannel.withLock { $0 = channel }
        logger.info("listening", metadata: [
            "address": "\(configuration.host):\(port)", "index": "\(configuration.indexPath)",
            "threads": "\(configuration.threads)", "mode": "\(configuration.responder == nil ? "lookup" : "\(type(of: configuration.responder!))")",
        ])
        // Signals are trapped before the index is loaded, so a daemon that answers /healthz 200
        // acts on SIGTERM and SIGHUP (reloads are serialised by the holder).
        watcher.start(pollIntervalNanoseconds: configuration.pollIntervalNanoseconds,
                      handleSignals: configuration.handleSignals) { [self] signal in stop(reason: signal) }
        if case .refused(let failure) = holder.reload(reason: "start"), configuration.requireIndex {
            stop(reason: "--require-index: no index")
            waitUntilStopped()
            throw CallDirError(failure.code, "--require-index: " + failure.message, path: failure.path, offset: failure.offset)
        }
    }

    private func bind() throws -> any Channel {
        try ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { [logger] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AcceptBackoff(logger: logger))
                }
            }
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture { try self.configure(channel) }
            }
            .bind(host: configuration.host, port: configuration.port)
            .wait()
    }

    private func configure(_ channel: any Channel) throws {
        let limits = configuration.limits
        var decoderLimits = NIOHTTPDecoderLimitConfiguration()
        decoderLimits.maxHeaderListSize = limits.maxHeaderBytes
        decoderLimits.maxHeaderFieldSize = limits.maxHeaderBytes
        decoderLimits.maxHeaderFieldCount = limits.maxHeaderFields
        let sync = channel.pipeline.syncOperations
        try sync.addHandler(SlowClientGuard(idleTimeoutNanoseconds: limits.idleTimeoutNanoseconds,
                                            requestTimeoutNanoseconds: limits.requestTimeoutNanoseconds, metrics: metrics))
        try sync.addHandler(BackPressureHandler())
        // No outbound header validation: every response header is written by HTTPHandler from
        // constants and numbers, never from request data (and the validator costs a pipeline hop).
        try sync.configureHTTPServerPipeline(withErrorHandling: false, withOutboundHeaderValidation: false,
                                             withEncoderConfiguration: .init(), withDecoderLimitConfiguration: decoderLimits)
        try sync.addHandler(HTTPHandler(router: router, responder: configuration.responder ?? router, metrics: metrics, maxBodyBytes: limits.maxBodyBytes,
                                        requestLogger: configuration.logRequests ? logger : nil))
        let id = ObjectIdentifier(channel)
        connections.withLock { $0[id] = channel }
        channel.closeFuture.whenComplete { [self] _ in
            _ = connections.withLock { $0.removeValue(forKey: id) }
        }
    }

    /// Stops accepting, lets every connection finish the request it is answering (idle ones
    /// close at once), then shuts the event loops down. Safe to call more than once.
    public func stop(reason: String = "stop") {
        let first = stopping.withLock { flag in
            defer { flag = true }
            return !flag
        }
        guard first else { return }
        logger.info("stopping: no new connections, finishing requests in flight", metadata: ["reason": "\(reason)"])
        watcher.stop()
        let listener = serverChannel.withLock { $0 }
        let closed = listener?.close() ?? group.next().makeSucceededVoidFuture()
        closed.whenComplete { [self] _ in
            let open = connections.withLock { Array($0.values) }
            for channel in open { channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent()) }
            let drained = EventLoopFuture.andAllComplete(open.map { $0.closeFuture }, on: group.next())
            // A client that never finishes its request is cut off by the request timeout;
            // this is only a backstop.
            let limit = TimeAmount.nanoseconds(configuration.limits.requestTimeoutNanoseconds + 1_000_000_000)
            let backstop = group.next().scheduleTask(in: limit) {
                for channel in open { channel.close(promise: nil) }
            }
            drained.whenComplete { [self] _ in
                backstop.cancel()
                logger.info("stopped")
                stopped.succeed()
            }
        }
    }

    /// Blocks until `stop` has drained every connection, then shuts the event loops down.
    public func waitUntilStopped() {
        try? stopped.futureResult.wait()
        try? group.syncShutdownGracefully()
    }
}
