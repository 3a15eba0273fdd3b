import CallDir
import NIOCore
import NIOHTTP1

/// One answer: status, JSON (or Prometheus text) body, and what /metrics counts it under.
public struct Response: Sendable {
    public var status: HTTPResponseStatus
    public var body: ByteBuffer
    public var contentType: String = "application/json"
    public var route: Route
    /// The `Allow` header of a 405.
    public var allow: String?
}

/// Routing as a pure function: method, URI and body in, response out. No sockets, no state of
/// its own: the index comes from the holder (one snapshot per request, so a batch is answered
/// by one index), counters go to `metrics`.
public struct Router: Sendable {
    let holder: IndexHolder
    let metrics: Metrics
    let limits: ServerLimits
    let normalizer: NumberNormalizer
    let allocator = ByteBufferAllocator()
    /// The benchmark baseline's answer, when set (`--constant-response`).
    let constant: ByteBuffer?

    public init(holder: IndexHolder, metrics: Metrics, limits: ServerLimits, normalizer: NumberNormalizer,
                constantResponse: Bool = false) {
        self.holder = holder
        self.metrics = metrics
        self.limits = limits
        self.normalizer = normalizer
        constant = constantResponse ? ByteBufferAllocator().buffer(string: #"{"action":"allow"}"#) : nil
    }

    static let lookupPrefix = "/v1/lookup/"

    public func respond(method: HTTPMethod, uri: String, body: ByteBuffer?) -> Response {
        if let constant { return Response(status: .ok, body: constant, route: .lookup) }
        let path = uri.firstIndex(of: "?").map { String(uri[..<$0]) } ?? uri
        if path.hasPrefix(Router.lookupPrefix) {
            guard method == .GET || method == .HEAD else { return notAllowed(.lookup, allow: "GET, HEAD") }
            return lookup(encoded: path.dropFirst(Router.lookupPrefix.count))
        }
        switch path {
        case "/v1/lookup":
            guard method == .POST else { return notAllowed(.batch, allow: "POST") }
            return batch(body)
        case "/healthz":
            guard method == .GET || method == .HEAD else { return notAllowed(.healthz, allow: "GET, HEAD") }
            return health()
        case "/metrics":
            guard method == .GET || method == .HEAD else { return notAllowed(.metrics, allow: "GET, HEAD") }
            var text = metrics.render(holder: holder)
            let body = text.withUTF8 { allocator.buffer(bytes: $0) }
            return Response(status: .ok, body: body, contentType: "text/plain; version=0.0.4; charset=utf-8", route: .metrics)
        default:
            return error(.notFound, .other, "not-found",
                         "no such path; the API is GET /v1/lookup/{number}, POST /v1/lookup, GET /healthz, GET /metrics")
        }
    }

    // MARK: Routes

    private func lookup(encoded: Substring) -> Response {
        guard let input = percentDecoded(encoded) else {
            return error(.badRequest, .lookup, "bad-request", "the number is not valid percent-encoded UTF-8")
        }
        guard let loaded = holder.snapshot else { return notReady(.lookup) }
        let number: Int64
        switch normalize(input) {
        case .success(let n): number = n
        case .failure(let reason):
            metrics.lookupsInvalid.increment()
            return error(.badRequest, .lookup, "invalid-number", reason.message,
                         extra: [("input", input), ("reason", reason.code)])
        }
        let result: LookupResult
        do { result = try loaded.index.lookup(number) } catch { return damaged(error, .lookup) }
        count(result)
        var body = allocator.buffer(capacity: 256)
        body.writeStaticString("{\"input\":")
        body.writeJSONString(input)
        body.writeInteger(UInt8(ascii: ","))
        body.writeLookupMembers(result)
        body.writeStaticString(",\"index\":")
        body.writeIndexIdentity(loaded)
        body.writeInteger(UInt8(ascii: "}"))
        return Response(status: .ok, body: body, route: .lookup)
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
        var out = allocator.buffer(capacity: 64 + inputs.count * 120)
        out.writeStaticString("{\"index\":")
        out.writeIndexIdentity(loaded)
        out.writeStaticString(",\"count\":")
        out.writeDecimal(Int64(inputs.count))
        out.writeStaticString(",\"results\":[")
        var tally = (block: 0, identify: 0, allow: 0, invalid: 0)
        for (i, input) in inputs.enumerated() {
            if i > 0 { out.writeInteger(UInt8(ascii: ",")) }
            out.writeStaticString("{\"input\":")
            out.writeJSONString(input)
            switch normalize(input) {
            case .success(let number):
                let result: LookupResult
                do { result = try loaded.index.lookup(number) } catch { return damaged(error, .batch) }
                switch result.action {
                case "block": tally.block += 1
                case "identify": tally.identify += 1
                default: tally.allow += 1
                }
                out.writeInteger(UInt8(ascii: ","))
                out.writeLookupMembers(result)
                out.writeInteger(UInt8(ascii: "}"))
            case .failure(let reason):
                tally.invalid += 1
                out.writeStaticString(",\"error\":\"invalid-number\",\"reason\":")
                out.writeJSONString(reason.code)
                out.writeStaticString(",\"message\":")
                out.writeJSONString(reason.message)
                out.writeInteger(UInt8(ascii: "}"))
            }
        }
        out.writeStaticString("]}")
        metrics.lookupsBlock.increment(by: tally.block)
        metrics.lookupsIdentify.increment(by: tally.identify)
        metrics.lookupsAllow.increment(by: tally.allow)
        metrics.lookupsInvalid.increment(by: tally.invalid)
        return Response(status: .ok, body: out, route: .batch)
    }

    private func health() -> Response {
        var body = allocator.buffer(capacity: 128)
        guard let loaded = holder.snapshot else {
            let why = holder.lastError?.description ?? "loading and verifying the index"
            body.writeError("not-ready", why)
            return Response(status: .serviceUnavailable, body: body, route: .healthz)
        }
        body.writeStaticString("{\"status\":\"ready\",\"index\":")
        body.writeIndexIdentity(loaded)
        body.writeStaticString(",\"entries\":")
        body.writeDecimal(Int64(loaded.entries))
        body.writeInteger(UInt8(ascii: "}"))
        return Response(status: .ok, body: body, route: .healthz)
    }

    // MARK: Helpers

    /// Why a text is not a number we can look up: the normaliser's reason, or one of our own.
    struct Invalid: Error {
        var code: String
        var message: String
    }

    private func normalize(_ input: String) -> Result<Int64, Invalid> {
        if input.utf8.count > limits.maxNumberLength {
            return .failure(Invalid(code: RejectReason.tooLong.rawValue,
                                    message: "longer than \(limits.maxNumberLength) characters"))
        }
        switch normalizer.normalize(input) {
        case .success(.number(let number)): return .success(number)
        case .success(.range):
            return .failure(Invalid(code: "range", message: "lookups take single numbers, not patterns or ranges"))
        case .failure(let reason): return .failure(Invalid(code: reason.rawValue, message: reason.explanation))
        }
    }

    private func count(_ result: LookupResult) {
        switch result.action {
        case "block": metrics.lookupsBlock.increment()
        case "identify": metrics.lookupsIdentify.increment()
        default: metrics.lookupsAllow.increment()
        }
    }

    func error(_ status: HTTPResponseStatus, _ route: Route, _ code: String, _ message: String,
               extra: [(String, String)] = []) -> Response {
        var body = allocator.buffer(capacity: 128)
        body.writeError(code, message, extra: extra)
        return Response(status: status, body: body, route: route)
    }

    private func notAllowed(_ route: Route, allow: String) -> Response {
        var response = error(.methodNotAllowed, route, "method-not-allowed", "use \(allow)")
        response.allow = allow
        return response
    }

    private func notReady(_ route: Route) -> Response {
        error(.serviceUnavailable, route, "not-ready", holder.lastError?.description ?? "no index loaded yet")
    }

    private func damaged(_ failure: Error, _ route: Route) -> Response {
        let message = (failure as? CallDirError)?.description ?? "\(failure)"
        return error(.internalServerError, route, "corrupt-index", message)
    }
}

/// Decodes %XX escapes (a path keeps '+' as '+'); nil on a bad escape or invalid UTF-8.
func percentDecoded(_ text: Substring) -> String? {
    guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count)
    var iterator = text.utf8.makeIterator()
    while let byte = iterator.next() {
        guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
        guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
        bytes.append(high << 4 | low)
    }
    return String(validating: bytes, as: UTF8.self)
}

private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
}
