#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// What `serve --follow` reports about the feed it follows (issue 25): on /healthz as
/// `"feed":{...}` and on /metrics as `calldir_feed_*`. Set by the follower in calldir-serve
/// (which links the feed's crypto and HTTP client; this library does not), read per request.
public final class FeedStatus: Sendable {
    public struct Snapshot: Sendable {
        public var url: String
        public var serial: Int64 = 0
        /// The installed manifest's creation time (seconds since 1970), 0 before the first.
        public var manifestCreated: Int64 = 0
        /// When that manifest expires (0: unknown): past it the feed is frozen, whatever the server says.
        public var expires: Int64 = 0
        /// The last check failed its deadlines (a trickling or silent server).
        public var stalled = false
        public var lastCheck: Int64 = 0
        public var lastSuccess: Int64 = 0
        public var lastError: String?
        public var checks = 0
        public var failures = 0
        public var updates = 0
    }

    private let state = Mutex<Snapshot?>(nil)

    public init() {}

    public var snapshot: Snapshot? { state.withLock { $0 } }

    /// "ok", "failing" (the last check failed), "stalled" (it was too slow) or "expired" (the
    /// installed manifest's expiry has passed: the feed is frozen or replayed).
    public static func condition(_ s: Snapshot, now: Int64) -> String {
        if s.expires > 0 && now >= s.expires { return "expired" }
        if s.stalled { return "stalled" }
        return s.lastError == nil ? "ok" : "failing"
    }

    public func update(_ body: (inout Snapshot) -> Void, url: String) {
        state.withLock { current in
            var s = current ?? Snapshot(url: url)
            body(&s)
            current = s
        }
    }

    /// `,"feed":{...}` for /healthz, or nothing when no feed is followed.
    public var healthJSON: String {
        guard let s = snapshot else { return "" }
        let now = Int64(time(nil))
        var out = ",\"feed\":{\"url\":" + quoted(s.url) + ",\"serial\":\(s.serial)"
        out += ",\"state\":\"\(Self.condition(s, now: now))\""
        out += ",\"expiresInSeconds\":" + (s.expires > 0 ? String(s.expires - now) : "null")
        out += ",\"ageSeconds\":" + (s.manifestCreated > 0 ? String(now - s.manifestCreated) : "null")
        out += ",\"lastCheckSecondsAgo\":" + (s.lastCheck > 0 ? String(now - s.lastCheck) : "null")
        out += ",\"lastError\":" + (s.lastError.map(quoted) ?? "null")
        out += ",\"checks\":\(s.checks),\"failures\":\(s.failures),\"updates\":\(s.updates)}"
        return out
    }

    /// The calldir_feed_* families in Prometheus text format, appended to /metrics.
    public var prometheusText: String {
        guard let s = snapshot else { return "" }
        let now = Int64(time(nil))
        func family(_ name: String, _ type: String, _ help: String, _ value: String) -> String {
            "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n\(name) \(value)\n"
        }
        return family("calldir_feed_serial", "gauge", "Serial of the feed manifest whose index is served.", String(s.serial))
            + family("calldir_feed_age_seconds", "gauge", "Seconds since the served manifest was published.",
                     String(s.manifestCreated > 0 ? now - s.manifestCreated : 0))
            + family("calldir_feed_last_success_timestamp_seconds", "gauge", "When the feed was last checked successfully.", String(s.lastSuccess))
            + family("calldir_feed_checks_total", "counter", "Feed checks (polls).", String(s.checks))
            + family("calldir_feed_failures_total", "counter", "Feed checks that failed (the old index kept serving).", String(s.failures))
            + family("calldir_feed_updates_total", "counter", "New indexes installed from the feed.", String(s.updates))
            + family("calldir_feed_last_check_failed", "gauge", "1 when the last feed check failed.", s.lastError == nil ? "0" : "1")
            + family("calldir_feed_expires_timestamp_seconds", "gauge", "When the served manifest expires (0: unknown).", String(s.expires))
            + family("calldir_feed_expired", "gauge", "1 when the served manifest has expired: the feed is frozen.",
                     Self.condition(s, now: now) == "expired" ? "1" : "0")
            + family("calldir_feed_stalled", "gauge", "1 when the last feed check was slower than the minimum rate or its time limit.",
                     s.stalled ? "1" : "0")
    }

    private func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += " "
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
