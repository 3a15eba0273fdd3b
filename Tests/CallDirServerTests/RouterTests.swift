import CallDir
import CallDirLookup
@testable import CallDirServer
import Foundation
import NIOCore
import NIOHTTP1
import Testing
@testable import CallDirReader

/// Routing without sockets: the router is a function from (method, URI, body) to a response.
@Suite("Router")
struct RouterTests {
    let scratch = TempFolder()
    let holder: IndexHolder
    let metrics = Metrics()
    let router: Router

    init() throws {
        holder = IndexHolder(path: try sampleIndex(scratch, buildTime: 1_700_000_000), metrics: metrics, logger: quietLogger)
        holder.reload(reason: "test")
        router = Router(holder: holder, metrics: metrics, limits: ServerLimits(), normalizer: try NumberNormalizer(country: nil))
    }

    func call(_ method: HTTPMethod, _ uri: String, _ body: String? = nil, headers: HTTPHeaders = HTTPHeaders(),
              router: Router? = nil) -> (status: Int, json: [String: Any], response: Response) {
        let response = (router ?? self.router).respond(method: method, uri: uri, body: body.map { ByteBuffer(string: $0) },
                                                       headers: headers)
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

    @Test("formatted numbers: %2B, spaces, dashes, format=json", arguments: [
        "/v1/lookup/%2B1%20800%20555%205555", "/v1/lookup/+1-800-555-5555", "/v1/lookup/1%20800-555-5555?format=json",
    ])
    func formatted(uri: String) {
        let (status, json, _) = call(.GET, uri)
        #expect(status == 200)
        #expect(json["number"] as? String == "+18005555555")
        #expect(json["action"] as? String == "block")
    }

    @Test("a caller ID that is not a number is a 200 with valid:false, the reason, and the policy's action")
    func notANumber() throws {
        let (status, json, _) = call(.GET, "/v1/lookup/4121213091")
        #expect(status == 200)
        #expect(json["valid"] as? Bool == false)
        #expect(json["reason"] as? String == "too-short")
        #expect(json["action"] as? String == "allow")
        #expect(json["blocked"] as? Bool == false)
        #expect(json["input"] as? String == "4121213091")
        #expect(json["index"] != nil)
        #expect(call(.GET, "/v1/lookup/5555").json["reason"] as? String == "too-short")
        #expect(call(.GET, "/v1/lookup/" + String(repeating: "1", count: 100)).json["reason"] as? String == "too-long")
        for withheld in ["anonymous", "Anonymous", "PRIVATE", "restricted", "%20withheld", "unavailable", "Unknown"] {
            #expect(call(.GET, "/v1/lookup/" + withheld).json["reason"] as? String == "anonymous", "\(withheld)")
        }
        #expect(call(.GET, "/v1/lookup/anonymously").json["reason"] as? String == "invalid-character")
        #expect(call(.GET, "/v1/lookup/%zz").status == 400)
        #expect(call(.GET, "/v1/lookup/%C3%28").status == 400)  // not UTF-8

        let strict = Router(holder: holder, metrics: metrics, limits: ServerLimits(), normalizer: try NumberNormalizer(),
                            policy: CallerIDPolicy(withheld: .block, invalid: .allow))
        #expect(call(.GET, "/v1/lookup/anonymous", router: strict).json["action"] as? String == "block")
        #expect(call(.GET, "/v1/lookup/5555", router: strict).json["action"] as? String == "allow")
        let blockInvalid = Router(holder: holder, metrics: metrics, limits: ServerLimits(), normalizer: try NumberNormalizer(),
                                  policy: CallerIDPolicy(withheld: .allow, invalid: .block))
        #expect(call(.GET, "/v1/lookup/5555", router: blockInvalid).json["action"] as? String == "block")
        #expect(call(.GET, "/v1/lookup/anonymous", router: blockInvalid).json["action"] as? String == "allow")
        let lenient = Router(holder: holder, metrics: metrics, limits: ServerLimits(),
                             normalizer: try NumberNormalizer(lenient: true))
        let spoofed = call(.GET, "/v1/lookup/12010000000", router: lenient).json
        #expect(spoofed["number"] as? String == "+12010000000" && spoofed["valid"] as? Bool == true)
        #expect(spoofed["input"] as? String == "12010000000")
    }

    @Test("an emergency number (911, 112, 999, 000) is allowed whatever --invalid says: one lookup, a batch, every format")
    func emergencyNumbers() throws {
        let blockInvalid = Router(holder: holder, metrics: metrics, limits: ServerLimits(), normalizer: try NumberNormalizer(),
                                  policy: CallerIDPolicy(withheld: .block, invalid: .block))
        for number in ["911", "112", "999", "000", "%28112%29"] {
            let json = call(.GET, "/v1/lookup/" + number, router: blockInvalid).json
            #expect(json["action"] as? String == "allow" && json["reason"] as? String == "emergency-number", "\(number): \(json)")
            #expect(String(buffer: call(.GET, "/v1/lookup/\(number)?format=status", router: blockInvalid).response.body) == "", "\(number)")
        }
        #expect(String(buffer: call(.GET, "/v1/lookup/911?format=text", router: blockInvalid).response.body) == "allow\n")
        let batch = call(.POST, "/v1/lookup", #"["911", "5555", "18005555555", "112"]"#, router: blockInvalid).json
        let results = try #require(batch["results"] as? [[String: Any]])
        #expect(results.map { $0["action"] as? String } == ["allow", "block", "block", "allow"])
        let us = Router(holder: holder, metrics: metrics, limits: ServerLimits(), normalizer: try NumberNormalizer(country: 1),
                        policy: CallerIDPolicy(withheld: .block, invalid: .block))
        #expect(call(.GET, "/v1/lookup/000", router: us).json["action"] as? String == "block")  // Australia's, not North America's
        #expect(call(.GET, "/v1/lookup/911", router: us).json["action"] as? String == "allow")
    }

    @Test("response shapes: ?format=text|status, Accept: text/plain, errors as text")
    func shapes() throws {
        func text(_ uri: String, headers: HTTPHeaders = HTTPHeaders()) -> (Int, String) {
            let response = call(.GET, uri, headers: headers).response
            return (Int(response.status.code), String(buffer: response.body))
        }
        #expect(text("/v1/lookup/18005555555?format=text") == (200, "block\n"))
        #expect(text("/v1/lookup/18775555555?format=text") == (200, "identify\tTelemarketer\n"))
        #expect(text("/v1/lookup/12125550000?format=text") == (200, "allow\n"))
        #expect(text("/v1/lookup/anonymous?format=text") == (200, "allow\n"))
        #expect(text("/v1/lookup/18005555555", headers: ["Accept": "text/plain"]) == (200, "block\n"))
        #expect(text("/v1/lookup/18005555555?format=json", headers: ["Accept": "text/plain"]).1.hasPrefix("{"))
        #expect(text("/v1/lookup/18005555555?format=status") == (403, "block\n"))
        #expect(text("/v1/lookup/18775555555?format=status") == (200, "identify\tTelemarketer\n"))
        #expect(text("/v1/lookup/12125550000?format=status") == (204, ""))
        #expect(text("/v1/lookup/abc?format=status") == (204, ""))
        #expect(text("/v1/lookup/1?format=xml").0 == 400)
        #expect(call(.GET, "/v1/lookup/18005555555?format=text").response.contentType == "text/plain; charset=utf-8")
        let empty = IndexHolder(path: scratch.file("missing.calldir"), metrics: metrics, logger: quietLogger)
        let unready = Router(holder: empty, metrics: metrics, limits: ServerLimits(), normalizer: try NumberNormalizer())
        let answer = call(.GET, "/v1/lookup/18005555555?format=text", router: unready).response
        #expect(answer.status == .serviceUnavailable)
        #expect(String(buffer: answer.body).hasPrefix("error\tnot-ready: "))
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
        #expect(results.map { $0["action"] as? String } == ["block", "identify", "allow", "allow", "block"])
        #expect(results.map { $0["input"] as? String }
            == ["18005555555", "18775555555", "+1 212 555 0000", "nope", "18005555555"])
        #expect(results[3]["valid"] as? Bool == false)
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
        // One vocabulary: 3 blocked + 3 labelled numbers, 1 range, and what a device loads.
        #expect(ready.json["numbers"] as? Int == 6)
        #expect(ready.json["ranges"] as? Int == 1)
        #expect(ready.json["deviceEntries"] as? Int == 6 + 10_000)  // the range +19005550000..9999 holds none of the numbers
        #expect(ready.json["entries"] == nil)

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
}
