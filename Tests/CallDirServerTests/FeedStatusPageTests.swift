import CallDirLookup
import CallDirReader
@testable import CallDirServer
import Testing

/// What `serve --follow` shows of its feed, written by the daemon's one JSON writer and one
/// metrics registry rather than by text of its own.
@Suite("the feed on /healthz and /metrics: one JSON writer, one registry")
struct FeedStatusPageTests {
    static func followed(lastError: String?) -> Metrics {
        let metrics = Metrics()
        metrics.feed.update({ s in
            s.serial = 7
            s.manifestCreated = 1_700_000_000
            s.expires = 1_700_000_100  // long past: expired
            s.lastCheck = 1_700_000_050
            s.lastSuccess = 1_700_000_040
            s.lastError = lastError
            s.checks = 3
            s.failures = 1
            s.updates = 2
        }, url: "https://lists.example/feed")
        return metrics
    }

    @Test("/healthz's feed strings are escaped as every other answer: a line break in an error is \\n, not a space")
    func healthEscaping() {
        let error = "HTTP 503 from \"mirror\"\nsecond line\t\\ \u{1}"
        var escaped: [UInt8] = []
        escaped.appendJSON(maxBytes: JSONWriter.stringBound(error)) { $0.string(error) }
        let json = Self.followed(lastError: error).feed.healthJSON
        #expect(json.contains(",\"lastError\":" + String(decoding: escaped, as: UTF8.self) + ","), "\(json)")
        #expect(json.contains("\\nsecond line\\t\\\\ \\u0001"), "\(json)")
        #expect(json.hasPrefix(",\"feed\":{\"url\":\"https://lists.example/feed\",\"serial\":7,\"state\":\"expired\""), "\(json)")
        #expect(json.hasSuffix(",\"checks\":3,\"failures\":1,\"updates\":2}"), "\(json)")
        #expect(Metrics().feed.healthJSON == "")
    }

    @Test("/metrics: the calldir_feed_* families are the registry's, typed, with the follower's totals at every scrape")
    func metricsPage() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let metrics = Self.followed(lastError: "refused")
        let holder = IndexHolder(path: scratch.path + "/absent.calldir", metrics: metrics, logger: quietLogger)
        _ = metrics.render(holder: holder)  // a second scrape must not add the totals again
        let page = try PrometheusText.parse(metrics.render(holder: holder))
        let expected: [String: (String, Double)] = [
            "calldir_feed_serial": ("gauge", 7), "calldir_feed_checks_total": ("counter", 3),
            "calldir_feed_failures_total": ("counter", 1), "calldir_feed_updates_total": ("counter", 2),
            "calldir_feed_last_check_failed": ("gauge", 1), "calldir_feed_expired": ("gauge", 1),
            "calldir_feed_stalled": ("gauge", 0), "calldir_feed_expires_timestamp_seconds": ("gauge", 1_700_000_100),
            "calldir_feed_last_success_timestamp_seconds": ("gauge", 1_700_000_040),
        ]
        for (name, (type, value)) in expected {
            #expect(page.types[name] == type, "\(name)")
            #expect(page.samples[PrometheusText.Key(name: name)] == value, "\(name)")
        }
        #expect((page.samples[PrometheusText.Key(name: "calldir_feed_age_seconds")] ?? 0) > 0)

        let unfollowed = Metrics()
        let quiet = try PrometheusText.parse(unfollowed.render(holder: IndexHolder(
            path: scratch.path + "/absent.calldir", metrics: unfollowed, logger: quietLogger)))
        #expect(!quiet.types.keys.contains { $0.hasPrefix("calldir_feed") })
    }
}
