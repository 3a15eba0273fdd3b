import CallDir
@testable import CallDirServer
import Foundation
import Testing
import CallDirReader
import TestSupport

/// /metrics as swift-prometheus writes it: it parses, every family keeps the name and type it
/// had when the page was hand-written, and the numbers are the requests that were made.
@Suite("metrics exporter: the page parses and counts what happened")
struct MetricsExportTests {
    static let families: [String: String] = [
        "calldir_http_requests_total": "counter", "calldir_http_request_duration_seconds": "histogram",
        "calldir_lookups_total": "counter", "calldir_index_reloads_total": "counter",
        "calldir_index_reload_failures_total": "counter", "calldir_request_timeouts_total": "counter",
        "calldir_http_requests_in_flight": "gauge", "calldir_index_mapped": "gauge", "calldir_index_ready": "gauge",
        "calldir_index_entries": "gauge", "calldir_index_info": "gauge", "calldir_index_build_time_seconds": "gauge",
        "calldir_index_age_seconds": "gauge", "calldir_index_loaded_seconds": "gauge",
    ]

    /// The family a sample belongs to (a histogram's _bucket/_sum/_count series are its own).
    func family(_ name: String, _ types: [String: String]) -> String {
        for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
            let base = String(name.dropLast(suffix.count))
            if types[base] == "histogram" { return base }
        }
        return name
    }

    @Test("a served page: same families and types, counts equal the requests made over a socket")
    func servedPage() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let server = try startServer(index: try sampleIndex(scratch, buildTime: 1_700_000_000))
        defer { server.stopAndWait() }
        let client = try TestHTTPClient(port: server.port)
        for _ in 0..<7 { #expect(try client.get("/v1/lookup/18005555555").status == 200) }
        for _ in 0..<3 { #expect(try client.get("/v1/lookup/12125550000").status == 200) }
        #expect(try client.get("/v1/lookup/x").status == 200)  // answered: an invalid number is allowed
        #expect(try client.get("/v1/lookup/%zz").status == 400)
        #expect(try client.post("/v1/lookup", "18005555555\n18775555555\n").status == 200)
        #expect(try client.get("/nowhere").status == 404)

        let page = try PrometheusText.parse(try client.get("/metrics").body)
        #expect(page.types == Self.families)
        for key in page.samples.keys { #expect(page.types[family(key.name, page.types)] != nil, "untyped: \(key.name)") }
        func value(_ name: String, _ labels: [(String, String)] = []) -> Double? {
            page.samples[PrometheusText.Key(name: name, labels: labels)]
        }
        #expect(value("calldir_http_requests_total", [("route", "lookup"), ("status", "200")]) == 11)
        #expect(value("calldir_http_requests_total", [("route", "lookup"), ("status", "400")]) == 1)
        #expect(value("calldir_http_requests_total", [("route", "batch"), ("status", "200")]) == 1)
        #expect(value("calldir_http_requests_total", [("route", "other"), ("status", "404")]) == 1)
        #expect(value("calldir_lookups_total", [("result", "block")]) == 8)
        #expect(value("calldir_lookups_total", [("result", "allow")]) == 3)
        #expect(value("calldir_lookups_total", [("result", "invalid")]) == 1)
        #expect(value("calldir_http_requests_in_flight") == 0)  // this scrape's body is in: no longer counted
        #expect(value("calldir_index_ready") == 1 && value("calldir_index_reloads_total") == 1)
        #expect(value("calldir_index_build_time_seconds") == 1_700_000_000)

        // The histogram: cumulative buckets ending in +Inf, which counts every answered request.
        let answered = page.samples.filter { $0.key.name == "calldir_http_requests_total" }.values.reduce(0, +)
        #expect(answered == 14)
        let buckets = page.samples.filter { $0.key.name == "calldir_http_request_duration_seconds_bucket" }
            .map { (bound: $0.key.labels["le"] == "+Inf" ? Double.infinity : Double($0.key.labels["le"] ?? "") ?? -1, count: $0.value) }
            .sorted { $0.bound < $1.bound }
        #expect(buckets.map(\.bound) == Metrics.bucketNanoseconds.map { Double($0) / 1e9 } + [.infinity])
        #expect(zip(buckets, buckets.dropFirst()).allSatisfy { $0.count <= $1.count })
        #expect(buckets.last?.count == answered && value("calldir_http_request_duration_seconds_count") == answered)
        #expect((value("calldir_http_request_duration_seconds_sum") ?? 0) > 0)
        // What the tests read through the API is what the page says.
        #expect(server.metrics.requestCount(route: .lookup, status: 200) == 11)
    }

    @Test("after a reload the page names only the new index; with none served, no index series")
    func infoFollowsReloads() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let metrics = Metrics()
        let a = try scratch.compile("a.calldir", block: ["18005555555"])
        let b = try scratch.compile("b.calldir", identify: ["18005555555,B"])
        let served = scratch.file("served.calldir")
        let missing = IndexHolder(path: scratch.file("missing.calldir"), metrics: metrics, logger: quietLogger)
        missing.reload(reason: "test")
        var page = try PrometheusText.parse(metrics.render(holder: missing))
        #expect(page.samples[PrometheusText.Key(name: "calldir_index_ready")] == 0)
        #expect(!page.samples.keys.contains { $0.name == "calldir_index_info" || $0.name == "calldir_index_entries" })

        try scratch.publish(a, as: served)
        let holder = IndexHolder(path: served, metrics: metrics, logger: quietLogger)
        holder.reload(reason: "start")
        let first = holder.snapshot!.checksum
        page = try PrometheusText.parse(metrics.render(holder: holder))
        #expect(page.samples.keys.filter { $0.name == "calldir_index_info" }.map { $0.labels["checksum"] } == [first])
        try scratch.publish(b, as: served)
        holder.reloadIfReplaced()
        let second = holder.snapshot!.checksum
        #expect(second != first)
        page = try PrometheusText.parse(metrics.render(holder: holder))
        #expect(page.samples.keys.filter { $0.name == "calldir_index_info" }.map { $0.labels["checksum"] } == [second])
        #expect(page.samples[PrometheusText.Key(name: "calldir_index_entries", labels: [("kind", "identified")])] == 1)
        #expect(metrics.reloads.count == 2)
    }

    @Test("the reader refuses what is not the text format, naming the line")
    func malformed() {
        #expect(throws: CallDirError.self) { try PrometheusText.parse("# TYPE a counter\na{b=\"c} 1\n") }
        #expect(throws: CallDirError.self) { try PrometheusText.parse("a 1\n9bad 2\n") }
        #expect(throws: CallDirError.self) { try PrometheusText.parse("a one\n") }
        let page = try? PrometheusText.parse("a{p=\"x\\\"y\\\\z\",q=\"\"} 2.5\n")
        #expect(page?.samples[PrometheusText.Key(name: "a", labels: [("p", "x\"y\\z"), ("q", "")])] == 2.5)
    }
}
