#if canImport(Glibc)
import Glibc
#endif
import Prometheus
import Synchronization

/// The followed feed's families on /metrics (`calldir_feed_*`): instruments in the daemon's one
/// swift-prometheus registry, set from `FeedStatus` at scrape time. So the whole page has one
/// writer, the registry (its HELP and TYPE lines, its value formatting: gauges as floats like
/// every other gauge, and its refusal of a name registered twice), rather than a second text
/// appended to it. Registered at the first scrape after the feed has a state: a daemon that
/// follows no feed shows none.
final class FeedGauges: Sendable {
    private typealias Family = (name: String, help: String, value: @Sendable (FeedStatus.Snapshot, Int64) -> Int64)

    private static let gauges: [Family] = [
        ("calldir_feed_serial", "Serial of the feed manifest whose index is served.", { s, _ in s.serial }),
        ("calldir_feed_age_seconds", "Seconds since the served manifest was published.",
         { s, now in s.manifestCreated > 0 ? now - s.manifestCreated : 0 }),
        ("calldir_feed_last_success_timestamp_seconds", "When the feed was last checked successfully.", { s, _ in s.lastSuccess }),
        ("calldir_feed_last_check_failed", "1 when the last feed check failed.", { s, _ in s.lastError == nil ? 0 : 1 }),
        ("calldir_feed_expires_timestamp_seconds", "When the served manifest expires (0: unknown).", { s, _ in s.expires }),
        ("calldir_feed_expired", "1 when the served manifest has expired: the feed is frozen.",
         { s, now in FeedStatus.condition(s, now: now) == "expired" ? 1 : 0 }),
        ("calldir_feed_stalled", "1 when the last feed check was slower than the minimum rate or its time limit.",
         { s, _ in s.stalled ? 1 : 0 }),
    ]

    /// The follower keeps these totals (and restores them from its saved state), so each is
    /// set at scrape time: reset, then incremented by the total.
    private static let counters: [Family] = [
        ("calldir_feed_checks_total", "Feed checks (polls).", { s, _ in Int64(s.checks) }),
        ("calldir_feed_failures_total", "Feed checks that failed (the old index kept serving).", { s, _ in Int64(s.failures) }),
        ("calldir_feed_updates_total", "New indexes installed from the feed.", { s, _ in Int64(s.updates) }),
    ]

    private struct Instruments {
        let gauges: [Gauge]
        let counters: [Counter]
    }

    private let registry: PrometheusCollectorRegistry
    private let instruments = Mutex<Instruments?>(nil)

    init(registry: PrometheusCollectorRegistry) { self.registry = registry }

    /// Sets every family from `status` (registering them the first time it has a state).
    func refresh(from status: FeedStatus) {
        guard let snapshot = status.snapshot else { return }
        let now = Int64(time(nil))
        instruments.withLock { made in
            let current = made ?? Instruments(
                gauges: Self.gauges.map { registry.makeGauge(descriptor: .init($0.name, help: $0.help)) },
                counters: Self.counters.map { registry.makeCounter(descriptor: .init($0.name, help: $0.help)) })
            made = current
            for (gauge, family) in zip(current.gauges, Self.gauges) { gauge.set(family.value(snapshot, now)) }
            for (counter, family) in zip(current.counters, Self.counters) {
                counter.reset()
                counter.increment(by: family.value(snapshot, now))
            }
        }
    }
}
