import CallDirFeed
import Foundation
import Testing
import TestSupport

/// `serve --follow` against a trickling mirror and a frozen one (issue 34, findings 2 and 3):
/// /healthz and /metrics say "stalled" and "expired", from the saved state after a restart.
@Suite("serve --follow adversary", .serialized, .tags(.endToEnd), .skippedInFastLoop)
struct FeedDaemonAdversaryTests {
    typealias Setup = FeedServerTests.Setup

    static func daemon(_ s: Setup, url: String, _ extra: [String] = []) throws -> ChildServer {
        let port = ChildServer.freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: FeedBin.path("calldir-serve"))
        process.arguments = ["--index", s.follower, "--port", String(port), "--poll-interval", "0", "--follow", url,
                             "--trusted-key", s.publicKey, "--follow-interval", "200", "--log-level", "critical"] + extra
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let server = ChildServer(process: process, port: port)
        guard ChildServer.waitUntilListening(port) else { server.stop(); throw TestFailure("the daemon did not start") }
        return server
    }

    /// Polls `path` until its answer contains `text` (at most `seconds`); the last answer.
    static func wait(_ port: Int, _ path: String, for text: String, seconds: Double = 40) -> String {
        let start = Date()
        var last = ""
        while Date().timeIntervalSince(start) < seconds {
            if let answer = FeedFollowTests.get(port, path) { last = answer.1; if last.contains(text) { break } }
            usleep(100_000)
        }
        return last
    }

    /// A series' value (the registry writes gauges as floats: `calldir_feed_stalled 1.0`).
    static func metric(_ text: String, _ name: String) -> Int64? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }.map { Int64($0) }
    }

    @Test("a mirror trickling the manifest: the daemon reports state \"stalled\" and calldir_feed_stalled 1, serial 1 from its saved state")
    func stalledMirror() throws {
        try FeedAdversaryTests.withHostileServer { s, server in
            try #require(try s.update(server.url).status == 0)
            try FeedAdversaryTests.rules(s, ["manifest.json": "trickle"])
            let daemon = try Self.daemon(s, url: server.url, ["--follow-stall-window", "1"])
            defer { daemon.stop() }
            let health = Self.wait(daemon.port, "/healthz", for: "\"state\":\"stalled\"")
            #expect(health.contains("\"serial\":1,\"state\":\"stalled\""), "\(health)")
            let metrics = try #require(FeedFollowTests.get(daemon.port, "/metrics")).1
            #expect(Self.metric(metrics, "calldir_feed_stalled") == 1 && Self.metric(metrics, "calldir_feed_serial") == 1, "\(metrics)")
        }
    }

    @Test("a mirror answering 'not modified' forever: once the manifest expires the daemon reports it (state \"expired\", failures, calldir_feed_expired 1); after a restart on a failing feed the metrics come from the saved state")
    func frozenMirror() throws {
        try FeedAdversaryTests.withHostileServer { s, server in
            try FeedBin.compile(FeedBin.churned(s.v1, fraction: 0.02, seed: 2), in: s.scratch, name: "v2.calldir")
            try s.publish("v2.calldir", ["--expires", "8s"])
            try #require(try s.update(server.url).status == 0)
            try FeedAdversaryTests.rules(s, ["manifest.json": "304"])
            var daemon = try Self.daemon(s, url: server.url)
            // The served manifest expires; then a poll answered 'not modified' fails.
            let health = Self.wait(daemon.port, "/healthz", for: "feed check 'expired' failed")
            #expect(health.contains("\"serial\":2,\"state\":\"expired\""), "\(health)")
            #expect(health.contains("feed check 'expired' failed"), "\(health)")
            var metrics = try #require(FeedFollowTests.get(daemon.port, "/metrics")).1
            #expect(Self.metric(metrics, "calldir_feed_expired") == 1, "\(metrics)")
            #expect((Self.metric(metrics, "calldir_feed_failures_total") ?? 0) > 0, "\(metrics)")
            daemon.stop()
            // Restarted while the feed fails outright: serial, age and expiry from the state file.
            try FeedAdversaryTests.rules(s, ["manifest.json": "missing"])
            daemon = try Self.daemon(s, url: server.url)
            defer { daemon.stop() }
            metrics = try #require(FeedFollowTests.get(daemon.port, "/metrics")).1
            #expect(Self.metric(metrics, "calldir_feed_serial") == 2, "\(metrics)")
            #expect((Self.metric(metrics, "calldir_feed_age_seconds") ?? 0) > 0, "\(metrics)")
            #expect(Self.metric(metrics, "calldir_feed_expired") == 1, "\(metrics)")
        }
    }
}
