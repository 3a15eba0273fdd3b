import NIOCore

/// Bounds how long one connection can hold the server, at the byte level (first in the
/// pipeline, before the HTTP decoder):
/// - a request must arrive completely within `requestTimeout` of its first byte (a response
///   written means the request was complete, since answers are only written once it is);
/// - a connection with no reads and no writes for `idleTimeout` is closed. That covers idle
///   keep-alive connections, and clients that stop reading their answers (NIO's
///   BackPressureHandler then stops reading from them, so nothing moves).
/// One timer per connection ticks at a quarter of the shorter limit: no timer per request.
/// An interim answer (`100 Continue`) is a write that does not end the request: the handler
/// that writes it sends `RequestContinues` next, so the request clock keeps running and a
/// client that never sends its body is cut off by the request timeout, not the idle one.
final class SlowClientGuard: ChannelDuplexHandler {
    /// Outbound event: the write just made was an interim response; the request goes on.
    struct RequestContinues {}

    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let idleTimeout: Int64
    private let requestTimeout: Int64
    private let metrics: Metrics
    private var requestStarted: UInt64?
    /// When the request last answered started (for `RequestContinues`).
    private var answeredRequestStarted: UInt64?
    private var lastActivity: UInt64 = 0
    private var tick: Scheduled<Void>?

    init(idleTimeoutNanoseconds: Int64, requestTimeoutNanoseconds: Int64, metrics: Metrics) {
        idleTimeout = idleTimeoutNanoseconds
        requestTimeout = requestTimeoutNanoseconds
        self.metrics = metrics
    }

    func handlerAdded(context: ChannelHandlerContext) {
        lastActivity = NIODeadline.now().uptimeNanoseconds
        if context.channel.isActive { schedule(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        if tick == nil { schedule(context) }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        tick?.cancel()
        tick = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        tick?.cancel()
        tick = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let now = NIODeadline.now().uptimeNanoseconds
        if requestStarted == nil { requestStarted = now }
        lastActivity = now
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if let requestStarted { answeredRequestStarted = requestStarted }
        requestStarted = nil
        lastActivity = NIODeadline.now().uptimeNanoseconds
        context.write(data, promise: promise)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is RequestContinues else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        requestStarted = answeredRequestStarted ?? NIODeadline.now().uptimeNanoseconds
        promise?.succeed()
    }

    private func schedule(_ context: ChannelHandlerContext) {
        let period = max(10_000_000, min(idleTimeout, requestTimeout) / 4)
        tick = context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(period)) {
            self.check(context)
        }
    }

    private func check(_ context: ChannelHandlerContext) {
        tick = nil
        guard context.channel.isActive else { return }
        let now = NIODeadline.now().uptimeNanoseconds
        let slowRequest = requestStarted.map { Int64(now &- $0) > requestTimeout } ?? false
        let idle = Int64(now &- lastActivity) > idleTimeout
        if slowRequest || idle {
            metrics.timeouts.increment()
            context.close(promise: nil)
            return
        }
        schedule(context)
    }
}
