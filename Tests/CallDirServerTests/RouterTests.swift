import CallDir
@testable import CallDirServer
import Foundation
import NIOCore
import NIOHTTP1
import Testing
@testable import CallDirReader

/// Routing without sockets: the router is a function from (method, URI, body) to a response.
@Suite("Router")
struct RouterTests {
    let scratch = Scratch()
    let holder: IndexHolder
    let metrics = Metrics()
    let router: Router

    init() throws {
        holder = IndexHolder(path: try sampleIndex(scratch, buildTime: 1_700_000_000), metrics: metrics, logger: quietLogger)
        holder.reload(reason: "test")
        router = Router(holder: holder, metrics: metrics, limits: ServerLimits(), normalizer: try NumberNormalizer(country: nil))
    }

    func call(_ method: HTTPMethod, _ uri: String, _ body: String? = nil) -> (status: Int, json: [String: Any], response: Response) {
        let response = router.respond(method: method, uri: uri, body: body.map { ByteBuffer(string: $0) })
        let json = (try? JSONSerialization.jsonObject(with: Data(String(buffer: response.body).utf8))) as? [String: Any] ?? [:]
        return (Int(response.status.code), json, response)
    }

    @Test("a blocked number: action, match, E.164, and the index's identity")
    func blocked() throws {
        let (status, json, response) = call(.GET, "/v1/lookup/18005555555")
        #expect(status == 200)
        #expect(response.contentType == "application/json")
        #expect(json["input"] as? String == "18005555555")
        #expect(json["number"] as? String == "+18005555555")
        #expect(json["e164"] as? Int64 == 18_005_555_555)
        #expect(json["action"] as? String == "block")
        #expect(json["blockedMatch"] as? String == "exact")
        let index = try #require(json["index"] as? [String: Any])
        #expect(index["checksum"] as? String == holder.snapshot?.checksum)
        #expect(index["buildTime"] as? Int == 1_700_000_000)
    }

    @Test("identify, allow, a range match, and a number both blocked and labelled")
    func actions() {
        #expect(call(.GET, "/v1/lookup/18775555555").json["action"] as? String == "identify")
        #expect(call(.GET, "/v1/lookup/18775555555").json["label"] as? String == "Telemarketer")
        let unknown = call(.GET, "/v1/lookup/12125550000").json
        #expect(unknown["action"] as? String == "allow")
        #expect(unknown["label"] is NSNull)
        let range = call(.GET, "/v1/lookup/19005551234").json
        #expect(range["action"] as? String == "block")
        #expect(range["blockedMatch"] as? String == "range")
        #expect((range["blockedRange"] as? [String: Any])?["first"] as? Int64 == 19_005_550_000)
        let both = call(.GET, "/v1/lookup/14085555555").json
        #expect(both["action"] as? String == "block")
        #expect(both["label"] as? String == "Spam risk")
    }

    @Test("formatted numbers: %2B, spaces, dashes, a query string", arguments: [
        "/v1/lookup/%2B1%20800%20555%205555", "/v1/lookup/+1-800-555-5555", "/v1/lookup/1%20800-555-5555?verbose=1",
    ])
    func formatted(uri: String) {
        let (status, json, _) = call(.GET, uri)
        #expect(status == 200)
        #expect(json["number"] as? String == "+18005555555")
        #expect(json["action"] as? String == "block")
    }

    @Test("an invalid number is a 400 with the reason; the input is echoed")
    func invalidNumber() {
        let (status, json, _) = call(.GET, "/v1/lookup/12%2345")
        #expect(status == 400)
        #expect(json["error"] as? String == "invalid-number")
        #expect(json["input"] as? String == "12#45")
        #expect(call(.GET, "/v1/lookup/123").json["reason"] as? String == "too-short")
        #expect(call(.GET, "/v1/lookup/1900555%23%23%23%23").json["reason"] as? String == "range")
        #expect(call(.GET, "/v1/lookup/" + String(repeating: "1", count: 100)).json["reason"] as? String == "too-long")
        #expect(call(.GET, "/v1/lookup/%zz").status == 400)
        #expect(call(.GET, "/v1/lookup/%C3%28").status == 400)  // not UTF-8
        #expect(call(.GET, "/v1/lookup/").json["reason"] as? String == "empty")
    }

    @Test("unknown paths are 404; wrong methods are 405 with Allow")
    func notFoundAndMethods() {
        #expect(call(.GET, "/").status == 404)
        #expect(call(.GET, "/v2/lookup/18005555555").status == 404)
        #expect(call(.GET, "/v1/lookup").status == 405)
        #expect(call(.GET, "/v1/lookup").response.allow == "POST")
        #expect(call(.POST, "/v1/lookup/18005555555", "x").response.allow == "GET, HEAD")
        #expect(call(.DELETE, "/healthz").status == 405)
        #expect(call(.PUT, "/metrics").status == 405)
        #expect(call(.HEAD, "/v1/lookup/18005555555").status == 200)
    }

    @Test("a JSON batch is answered in order, against one index named once")
    func jsonBatch() throws {
        let body = #"["18005555555", 18775555555, "+1 212 555 0000", "nope", "\u0031\u0038\u0030\u0030\u0035\u0035\u0035\u0035\u0035\u0035\u0035"]"#
        let (status, json, _) = call(.POST, "/v1/lookup", body)
        #expect(status == 200)
        #expect(json["count"] as? Int == 5)
        #expect((json["index"] as? [String: Any])?["checksum"] as? String == holder.snapshot?.checksum)
        let results = try #require(json["results"] as? [[String: Any]])
        #expect(results.map { $0["action"] as? String } == ["block", "identify", "allow", nil, "block"])
        #expect(results.map { $0["input"] as? String }
            == ["18005555555", "18775555555", "+1 212 555 0000", "nope", "18005555555"])
        #expect(results[3]["error"] as? String == "invalid-number")
        #expect(results[3]["reason"] as? String == "invalid-character")
        #expect(results[0]["index"] == nil)
    }

    @Test("a text batch: one number per line, CRLF and blank lines tolerated")
    func textBatch() throws {
        let (status, json, _) = call(.POST, "/v1/lookup", "18005555555\r\n\n  +1 877 555 5555  \n12125550000")
        #expect(status == 200)
        let results = try #require(json["results"] as? [[String: Any]])
        #expect(results.map { $0["action"] as? String } == ["block", "identify", "allow"])
    }

    @Test("batch limits and malformed bodies")
    func batchErrors() {
        let limit = ServerLimits().maxBatchNumbers
        let tooMany = (0...limit).map { _ in "18005555555" }.joined(separator: "\n")
        let (status, json, _) = call(.POST, "/v1/lookup", tooMany)
        #expect(status == 413)
        #expect(json["error"] as? String == "batch-too-large")
        #expect(call(.POST, "/v1/lookup", (0..<limit).map { _ in "18005555555" }.joined(separator: "\n")).status == 200)
        #expect(call(.POST, "/v1/lookup", "").status == 400)
        #expect(call(.POST, "/v1/lookup", #"["18005555555""#).status == 400)
        #expect(call(.POST, "/v1/lookup", #"["18005555555"] x"#).status == 400)
        #expect(call(.POST, "/v1/lookup", #"[{"n": 1}]"#).json["error"] as? String == "bad-request")
        #expect(call(.POST, "/v1/lookup", "[]").json["count"] as? Int == 0)
    }

    @Test("healthz is ready with an index, 503 without one")
    func health() throws {
        let ready = call(.GET, "/healthz")
        #expect(ready.status == 200)
        #expect(ready.json["status"] as? String == "ready")
        #expect(ready.json["entries"] as? Int == 7)  // 3 blocked + 3 labelled + 1 range

        let empty = IndexHolder(path: scratch.file("missing.calldir"), metrics: metrics, logger: quietLogger)
        empty.reload(reason: "test")
        let unready = Router(holder: empty, metrics: metrics, limits: ServerLimits(), normalizer: try NumberNormalizer(country: nil))
        let response = unready.respond(method: .GET, uri: "/healthz", body: nil)
        #expect(response.status == .serviceUnavailable)
        #expect(String(buffer: response.body).contains("not-ready"))
        #expect(unready.respond(method: .GET, uri: "/v1/lookup/18005555555", body: nil).status == .serviceUnavailable)
        #expect(unready.respond(method: .POST, uri: "/v1/lookup", body: ByteBuffer(string: "1")).status == .serviceUnavailable)
    }

    @Test("metrics: Prometheus text with every family the issue lists")
    func metricsPage() {
        _ = call(.GET, "/v1/lookup/18005555555")
        _ = call(.GET, "/v1/lookup/bad")
        metrics.record(route: .lookup, status: 200, nanoseconds: 120_000)
        let (status, _, response) = call(.GET, "/metrics")
        let text = String(buffer: response.body)
        #expect(status == 200)
        #expect(response.contentType.hasPrefix("text/plain; version=0.0.4"))
        for needle in [
            #"calldir_http_requests_total{route="lookup",status="200"} 1"#,
            #"calldir_http_request_duration_seconds_bucket{le="0.00025"} 1"#,
            "calldir_http_request_duration_seconds_count 1",
            #"calldir_lookups_total{result="block"} 1"#, #"calldir_lookups_total{result="invalid"} 1"#,
            #"calldir_index_entries{kind="blocked"} 3"#, "calldir_index_reloads_total 1",
            "calldir_index_reload_failures_total 0", "calldir_index_build_time_seconds 1700000000",
            "calldir_index_info{checksum=\"\(holder.snapshot!.checksum)\"", "calldir_index_age_seconds ",
            "calldir_index_mapped 1", "calldir_index_ready 1",
        ] {
            #expect(text.contains(needle), "missing: \(needle)")
        }
    }

    @Test("constant-response mode answers every request the same way (the benchmark baseline)")
    func constant() throws {
        let baseline = Router(holder: holder, metrics: metrics, limits: ServerLimits(),
                              normalizer: try NumberNormalizer(country: nil), constantResponse: true)
        let response = baseline.respond(method: .GET, uri: "/v1/lookup/18005555555", body: nil)
        #expect(response.status == .ok)
        #expect(String(buffer: response.body) == #"{"action":"allow"}"#)
    }
}
