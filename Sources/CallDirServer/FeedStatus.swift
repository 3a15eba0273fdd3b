#if canImport(Glibc)
import Glibc
#endif
import CallDirReader
import Synchronization

/// What `serve --follow` reports about the feed it follows (issue 25): on /healthz as
/// `"feed":{...}` and on /metrics as `calldir_feed_*` (`FeedGauges`). Set by the follower in calldir-serve
/// (which links the feed's crypto and HTTP client; this library does not), read per request.
package final class FeedStatus: Sendable {
    package struct Snapshot: Sendable {
        package var url: String
        package var serial: Int64 = 0
        /// The installed manifest's creation time (seconds since 1970), 0 before the first.
        package var manifestCreated: Int64 = 0
        /// When that manifest expires (0: unknown): past it the feed is frozen, whatever the server says.
        package var expires: Int64 = 0
        /// The last check failed its deadlines (a trickling or silent server).
        package var stalled = false
        package var lastCheck: Int64 = 0
        package var lastSuccess: Int64 = 0
        package var lastError: String?
        package var checks = 0
        package var failures = 0
        package var updates = 0
    }

    private let state = Mutex<Snapshot?>(nil)

    package init() {}

    package var snapshot: Snapshot? { state.withLock { $0 } }

    /// "ok", "failing" (the last check failed), "stalled" (it was too slow) or "expired" (the
    /// installed manifest's expiry has passed: the feed is frozen or replayed).
    package static func condition(_ s: Snapshot, now: Int64) -> String {
        if s.expires > 0 && now >= s.expires { return "expired" }
        if s.stalled { return "stalled" }
        return s.lastError == nil ? "ok" : "failing"
    }

    package func update(_ body: (inout Snapshot) -> Void, url: String) {
        state.withLock { current in
            var s = current ?? Snapshot(url: url)
            body(&s)
            current = s
        }
    }

    /// `,"feed":{...}` for /healthz, or nothing when no feed is followed: written by `JSONWriter`,
    /// the one JSON writer (a line break in an error is `\n`, as in every other answer).
    package var healthJSON: String {
        guard let s = snapshot else { return "" }
        let now = Int64(time(nil))
        let bound = 400 + JSONWriter.stringBound(s.url) + JSONWriter.stringBound(s.lastError ?? "")
        var out: [UInt8] = []
        out.appendJSON(maxBytes: bound) { json in
            func member(_ name: StaticString, _ value: Int64?) {
                json.text(name)
                if let value { json.decimal(value) } else { json.text("null") }
            }
            json.text(",\"feed\":{\"url\":")
            json.string(s.url)
            member(",\"serial\":", s.serial)
            json.text(",\"state\":")
            json.string(Self.condition(s, now: now))
            member(",\"expiresInSeconds\":", s.expires > 0 ? s.expires - now : nil)
            member(",\"ageSeconds\":", s.manifestCreated > 0 ? now - s.manifestCreated : nil)
            member(",\"lastCheckSecondsAgo\":", s.lastCheck > 0 ? now - s.lastCheck : nil)
            json.text(",\"lastError\":")
            if let lastError = s.lastError { json.string(lastError) } else { json.text("null") }
            member(",\"checks\":", Int64(s.checks))
            member(",\"failures\":", Int64(s.failures))
            member(",\"updates\":", Int64(s.updates))
            json.byte(UInt8(ascii: "}"))
        }
        return String(decoding: out, as: UTF8.self)
    }
}
