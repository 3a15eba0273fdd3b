import Logging
import NIOCore
import NIOHTTP1

/// Adapts NIO's HTTP parts to `Router`: collects a request (its body up to the limit), asks
/// the router, writes the answer, records it in /metrics. One instance per connection.
final class HTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private enum State {
        case idle
        case receiving(HTTPRequestHead, body: ByteBuffer?, started: UInt64)
        /// Answered early (413 or a protocol error): drop the rest, the connection closes.
        case rejected
    }

    private let router: Router
    /// What answers complete requests: the router, or a benchmark's stand-in.
    private let responder: any Responder
    private let metrics: Metrics
    private let maxBodyBytes: Int
    private let requestLogger: Logger?
    private var state = State.idle

    init(router: Router, responder: any Responder, metrics: Metrics, maxBodyBytes: Int, requestLogger: Logger?) {
        self.router = router
        self.responder = responder
        self.metrics = metrics
        self.maxBodyBytes = maxBodyBytes
        self.requestLogger = requestLogger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            let started = NIODeadline.now().uptimeNanoseconds
            metrics.inFlight.increment()
            if let length = head.headers.first(name: "content-length").flatMap(Int.init), length > maxBodyBytes {
                reject(context, head: head, started: started)
            } else {
                state = .receiving(head, body: nil, started: started)
                // A client that asks first (libcurl does for large bodies) would otherwise wait
                // a second before sending the batch.
                if head.headers.contains(name: "expect"), head.headers[canonicalForm: "expect"].contains(where: {
                    $0.lowercased() == "100-continue"
                }) {
                    context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .continue))),
                                          promise: nil)
                    // The body is still to come: keep the request timeout running.
                    context.triggerUserOutboundEvent(SlowClientGuard.RequestContinues(), promise: nil)
                }
            }
        case .body(var chunk):
            guard case .receiving(let head, var body, let started) = state else { return }
            state = .idle  // drop our reference so appending does not copy
            if (body?.readableBytes ?? 0) + chunk.readableBytes > maxBodyBytes {
                reject(context, head: head, started: started)
                return
            }
            if body == nil { body = chunk } else { body!.writeBuffer(&chunk) }
            state = .receiving(head, body: body, started: started)
        case .end:
            guard case .receiving(let head, let body, let started) = state else { return }  // rejected: ignore
            state = .idle
            metrics.inFlight.increment(by: -1)
            let response = responder.respond(method: head.method, uri: head.uri, body: body, headers: head.headers)
            write(context, response, head: head, keepAlive: head.isKeepAlive, started: started)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if case .receiving = state { metrics.inFlight.increment(by: -1) }  // the client gave up
        state = .idle
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        guard let parseError = error as? HTTPParserError else {
            context.close(promise: nil)
            return
        }
        // The request could not be parsed: answer once if nothing is in flight, then close.
        if case .rejected = state { return }
        if case .receiving = state { metrics.inFlight.increment(by: -1) }
        let overflow = parseError == .headerOverflow
        let response = router.error(overflow ? .init(statusCode: 431) : .badRequest, .other,
                                    overflow ? "headers-too-large" : "bad-request",
                                    overflow ? "the request line and headers are too large" : "malformed HTTP request")
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "")
        state = .rejected
        write(context, response, head: head, keepAlive: false, started: NIODeadline.now().uptimeNanoseconds)
    }

    /// 413 before reading a body that is (or says it will be) too large; the connection closes
    /// so the rest of the body is never read.
    private func reject(_ context: ChannelHandlerContext, head: HTTPRequestHead, started: UInt64) {
        state = .rejected
        metrics.inFlight.increment(by: -1)
        let route: Route = head.uri.hasPrefix("/v1/lookup") ? .batch : .other
        let response = router.error(.payloadTooLarge, route, "body-too-large",
                                    "the body is larger than \(maxBodyBytes) bytes")
        write(context, response, head: head, keepAlive: false, started: started)
    }

    private func write(_ context: ChannelHandlerContext, _ response: Response, head: HTTPRequestHead,
                       keepAlive: Bool, started: UInt64) {
        var headers = HTTPHeaders()
        headers.reserveCapacity(4)
        headers.add(name: "content-type", value: response.contentType)
        headers.add(name: "content-length", value: String(response.body.readableBytes))
        if let allow = response.allow { headers.add(name: "allow", value: allow) }
        if !keepAlive {
            headers.add(name: "connection", value: "close")
        } else if head.version.minor == 0 {
            headers.add(name: "connection", value: "keep-alive")
        }
        let version = head.version.minor == 0 ? HTTPVersion.http1_0 : .http1_1
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: response.status, headers: headers))),
                      promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(response.body))), promise: nil)
        if keepAlive {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        } else {
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
        }
        let elapsed = Int64(NIODeadline.now().uptimeNanoseconds &- started)
        metrics.record(route: response.route, status: Int(response.status.code), nanoseconds: elapsed)
        requestLogger?.info("\(head.method) \(head.uri) \(response.status.code) \(elapsed / 1000)us")
    }
}
