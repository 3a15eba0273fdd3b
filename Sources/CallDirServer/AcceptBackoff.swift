#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOCore

/// Pauses accepting when accept(2) fails for want of descriptors or kernel memory (EMFILE,
/// ENFILE, ENOBUFS, ENOMEM). The pending connection stays in the backlog and keeps the
/// listening socket readable, so NIO, which keeps the listener open on these errors, would
/// call accept again at once: the event loop spins at 100% of a core until clients leave and
/// /healthz starves with it.
///
/// NIO's own `AcceptBackoffHandler` does not help here (NIO 2.101): it delays the next
/// `read()`, but when the first accept of a read fails the channel still counts its read as
/// pending, never asks for another, and stays registered for readable events. Turning
/// `autoRead` off does remove the listener from epoll; it is turned back on after `pause`,
/// when accept is tried again (connections wait in the backlog meanwhile). A warning is
/// logged at most once per `warningEvery`.
final class AcceptBackoff: ChannelInboundHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    static let pause = TimeAmount.milliseconds(100)
    static let warningEvery = TimeAmount.seconds(10)

    private let logger: Logger
    private var resume: Scheduled<Void>?
    private var lastWarning: NIODeadline?

    init(logger: Logger) { self.logger = logger }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        guard let code = (error as? IOError)?.errnoCode, [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(code) else {
            context.fireErrorCaught(error)
            return
        }
        warn(code)
        guard resume == nil, let options = context.channel.syncOptions else { return }
        try? options.setOption(.autoRead, value: false)
        resume = context.eventLoop.assumeIsolated().scheduleTask(in: Self.pause) { [self] in
            resume = nil
            try? context.channel.syncOptions?.setOption(.autoRead, value: true)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        resume?.cancel()
        resume = nil
        context.fireChannelInactive()
    }

    private func warn(_ code: Int32) {
        let now = NIODeadline.now()
        if let lastWarning, now - lastWarning < Self.warningEvery { return }
        lastWarning = now
        logger.warning("cannot accept connections, pausing", metadata: [
            "reason": "\(String(cString: strerror(code)))",
            "pause": "\(Self.pause.nanoseconds / 1_000_000)ms",
            "remedy": "raise the descriptor limit (ulimit -n, LimitNOFILE=) or spread clients over more instances",
        ])
    }
}
