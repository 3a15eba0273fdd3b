import CallDirLookup
import NIOCore
import NIOHTTP1
import CallDirNumbers
import CallDirReader

/// One answer: status, JSON (or Prometheus text) body, and what /metrics counts it under.
public struct Response: Sendable {
    /// The HTTP status.
    public var status: HTTPResponseStatus
    /// The body, sent as is.
    public var body: ByteBuffer
    /// The `Content-Type` header.
    public var contentType: String = "application/json"
    /// What /metrics counts the request under.
    public var route: Route
    /// The `Allow` header of a 405.
    public var allow: String?

    /// A response; JSON unless `contentType` says otherwise.
    public init(status: HTTPResponseStatus, body: ByteBuffer, contentType: String = "application/json", route: Route,
                allow: String? = nil) {
        self.status = status
        self.body = body
        self.contentType = contentType
        self.route = route
        self.allow = allow
    }
}

/// What answers a complete request. `Router` is the daemon's; a benchmark can put another in
/// `ServerConfiguration.responder` to measure the HTTP stack alone (Benchmarks/Sources/
/// calldir-serve-constant).
public protocol Responder: Sendable {
    /// The answer to one complete request (`body` is nil when the request had none).
    func respond(method: HTTPMethod, uri: String, body: ByteBuffer?, headers: HTTPHeaders) -> Response
}

/// Routing as a pure function: method, URI and body in, response out. No sockets, no state of
/// its own: the index comes from the holder (one snapshot per request, so a batch is answered
/// by one index), counters go to `metrics`.
package struct Router: Responder {
    let holder: IndexHolder
    let metrics: Metrics
    let limits: ServerLimits
    let normalizer: NumberNormalizer
    /// What caller IDs that are not numbers get.
    let policy: CallerIDPolicy
    let allocator = ByteBufferAllocator()

    package init(holder: IndexHolder, metrics: Metrics, limits: ServerLimits, normalizer: NumberNormalizer,
                policy: CallerIDPolicy = CallerIDPolicy()) {
        self.policy = policy
        self.holder = holder
        self.metrics = metrics
        self.limits = limits
        self.normalizer = normalizer
    }

    /// `headers` matter only for a single lookup's `Accept` (see `ResponseFormat`).
    package func respond(method: HTTPMethod, uri: String, body: ByteBuffer?, headers: HTTPHeaders = HTTPHeaders()) -> Response {
        var uri = uri
        switch uri.withUTF8(RequestTarget.init) {
        case .lookup(let number, let format):
            guard method == .GET || method == .HEAD else { return notAllowed(.lookup, allow: "GET, HEAD") }
            return lookup(number, format: format ?? ResponseFormat(accept: headers))
        case .badLookup(let why, let format):
            guard method == .GET || method == .HEAD else { return notAllowed(.lookup, allow: "GET, HEAD") }
            return error(.badRequest, .lookup, "bad-request", why.message, format: format ?? ResponseFormat(accept: headers))
        case .batch:
            guard method == .POST else { return notAllowed(.batch, allow: "POST") }
            return batch(body)
        case .healthz:
            guard method == .GET || method == .HEAD else { return notAllowed(.healthz, allow: "GET, HEAD") }
            return health()
        case .metrics:
            guard method == .GET || method == .HEAD else { return notAllowed(.metrics, allow: "GET, HEAD") }
            var text = metrics.render(holder: holder)
            let body = text.withUTF8 { allocator.buffer(bytes: $0) }
            return Response(status: .ok, body: body, contentType: "text/plain; version=0.0.4; charset=utf-8", route: .metrics)
        case .unknown:
            return error(.notFound, .other, "not-found",
                         "no such path; the API is GET /v1/lookup/{number}, POST /v1/lookup, GET /healthz, GET /metrics")
        }
    }

    // MARK: Routes

    private func lookup(_ input: String, format: ResponseFormat) -> Response {
        guard let loaded = holder.snapshot else { return notReady(.lookup, format: format) }
        let result: LookupResult
        switch classify(input) {
        case .number(let number):
            do { result = try loaded.index.lookup(number) } catch { return damaged(error, .lookup, format: format) }
            count(result)
        case .notANumber(let reason) where !reason.canBeCallerID:
            return error(.badRequest, .lookup, "not-a-caller-id", Self.notACallerID, format: format)
        case .notANumber(let reason):
            metrics.lookupsInvalid.increment()
            return notANumber(input, reason, loaded, format: format)
        }
        if format != .json { return verdict(result.action, label: result.label, format: format) }
        let identity = loaded.identity
        let body = result.withView { view in
            let bound = JSONWriter.answerBound(view, input: .text(input), personal: nil, index: identity)
            var body = allocator.buffer(capacity: bound)
            body.writeRaw(maxBytes: bound) { $0.answer(view, input: .text(input), index: identity) }
            return body
        }
        return Response(status: .ok, body: body, route: .lookup)
    }

    static let notACallerID = "a single lookup takes one caller ID (digits, separators, '+', or a withheld word such as "
        + "'anonymous'), not a range, a pattern or text without digits; send 'anonymous' for an empty caller ID"

    /// The answer for a caller ID that is not a number: 200, the policy's action, and why.
    private func notANumber(_ input: String, _ reason: RejectReason, _ loaded: LoadedIndex, format: ResponseFormat) -> Response {
        let action = policy.action(for: reason)
        if format != .json { return verdict(action.verdict, label: nil, format: format) }
        let message = normalizer.explain(input, reason)  // the rule for this input
        let bound = JSONWriter.notANumberAnswerBound(input: input, message: message, index: loaded.identity)
        var body = allocator.buffer(capacity: bound)
        body.writeRaw(maxBytes: bound) { $0.notANumberAnswer(input: input, reason, message: message, action: action, index: loaded.identity) }
        return Response(status: .ok, body: body, route: .lookup)
    }

    /// A `text` or `status` answer.
    private func verdict(_ action: LookupAction, label: String?, format: ResponseFormat) -> Response {
        let status = format == .status ? ResponseFormat.verdictStatus(action: action) : .ok
        let body = status == .noContent ? allocator.buffer(capacity: 0)
            : ResponseFormat.textLine(action: action, label: label, allocator: allocator)
        return Response(status: status, body: body, contentType: "text/plain; charset=utf-8", route: .lookup)
    }

    private func batch(_ body: ByteBuffer?) -> Response {
        guard let body, body.readableBytes > 0 else {
            return error(.badRequest, .batch, "bad-request", "send a JSON array of numbers or one number per line")
        }
        let inputs: [String]
        switch BatchParser.parse(body, limit: limits.maxBatchNumbers) {
        case .success(let parsed): inputs = parsed
        case .failure(.tooMany(let limit)):
            return error(.payloadTooLarge, .batch, "batch-too-large", "a batch holds at most \(limit) numbers; split it")
        case .failure(.malformed(let detail)):
            return error(.badRequest, .batch, "bad-request", "not a JSON array of numbers: \(detail)")
        }
        guard let loaded = holder.snapshot else { return notReady(.batch) }
        let classes = inputs.map(classify)
        var numbers: [Int64] = []
        numbers.reserveCapacity(inputs.count)
        for case .number(let number) in classes { numbers.append(number) }
        var answers = BatchAnswers(inputs: inputs, classes: classes, policy: policy, normalizer: normalizer, identity: loaded.identity,
                                   allocator: allocator)
        do {
            // One batch lookup (memory reads overlapped, labels written from their bytes).
            try numbers.withUnsafeBufferPointer { numbers in
                try loaded.index.lookupViews(numbers) { answers.answer($0) }
            }
        } catch {
            return damaged(error, .batch)
        }
        answers.finish()
        metrics.lookupsBlock.increment(by: answers.tally.block)
        metrics.lookupsIdentify.increment(by: answers.tally.identify)
        metrics.lookupsAllow.increment(by: answers.tally.allow)
        metrics.lookupsInvalid.increment(by: answers.tally.invalid)
        return Response(status: .ok, body: answers.out, route: .batch)
    }

    private func health() -> Response {
        var body = allocator.buffer(capacity: 128)
        guard let loaded = holder.snapshot else {
            let why = holder.lastError?.description ?? "loading and verifying the index"
            body.writeError("not-ready", why)
            return Response(status: .serviceUnavailable, body: body, route: .healthz)
        }
        body.writeStaticString("{\"status\":\"ready\",\"index\":")
        body.writeBytes(loaded.identity)
        body.writeStaticString(",\"numbers\":")
        body.writeDecimal(Int64(loaded.numbers))
        body.writeStaticString(",\"ranges\":")
        body.writeDecimal(Int64(loaded.ranges))
        body.writeStaticString(",\"deviceEntries\":")
        body.writeDecimal(loaded.deviceEntries)
        body.writeStaticString(",\"lastReload\":")
        body.writeBytes(holder.lastReloadJSON)
        body.writeString(metrics.feed.healthJSON)
        body.writeInteger(UInt8(ascii: "}"))
        return Response(status: .ok, body: body, route: .healthz)
    }

    // MARK: Helpers

    /// The caller ID's class; a text too long to be a number is not even normalised.
    private func classify(_ input: String) -> CallerID {
        if input.utf8.count > limits.maxNumberLength { return .notANumber(.tooLong) }
        return normalizer.classify(input)
    }

    private func count(_ result: LookupResult) {
        if result.blocked != nil {
            metrics.lookupsBlock.increment()
        } else if result.label != nil {
            metrics.lookupsIdentify.increment()
        } else {
            metrics.lookupsAllow.increment()
        }
    }

    /// An error answer: JSON, or for `text`/`status` clients the line `error<TAB>code: message`.
    func error(_ status: HTTPResponseStatus, _ route: Route, _ code: String, _ message: String,
               format: ResponseFormat = .json) -> Response {
        var body = allocator.buffer(capacity: 128)
        guard format == .json else {
            body.writeString("error\t\(code): \(message)\n")
            return Response(status: status, body: body, contentType: "text/plain; charset=utf-8", route: route)
        }
        body.writeError(code, message)
        return Response(status: status, body: body, route: route)
    }

    private func notAllowed(_ route: Route, allow: String) -> Response {
        var response = error(.methodNotAllowed, route, "method-not-allowed", "use \(allow)")
        response.allow = allow
        return response
    }

    private func notReady(_ route: Route, format: ResponseFormat = .json) -> Response {
        error(.serviceUnavailable, route, "not-ready", holder.lastError?.description ?? "no index loaded yet", format: format)
    }

    private func damaged(_ failure: Error, _ route: Route, format: ResponseFormat = .json) -> Response {
        let message = (failure as? CallDirError)?.description ?? "\(failure)"
        return error(.internalServerError, route, "corrupt-index", message, format: format)
    }
}
