#if canImport(Glibc)
import Glibc
#endif
import CoreMetrics
import Prometheus
import Synchronization

extension Metrics {
    /// The /metrics page (Prometheus text format 0.0.4), written by swift-prometheus's registry
    /// after the index gauges are set from the holder and the feed's from `feed`.
    package func render(holder: IndexHolder) -> String {
        scrape.refresh(from: holder) {
            feedGauges.refresh(from: feed)
            return registry.emitToString()
        }
    }
}

/// A gauge set at scrape time: the swift-metrics `Meter` and the registry entry it writes to
/// (kept to unregister it when its labels change or the index goes away).
private struct ScrapeGauge: Sendable {
    let entry: Prometheus.Gauge
    let meter: Meter

    init(_ registry: PrometheusCollectorRegistry, _ name: String, _ labels: [(String, String)] = [], help: String) {
        entry = registry.makeGauge(descriptor: .init(name, help: help), labels: labels)
        meter = Meter(label: name, dimensions: labels, handler: entry)
    }
}

/// The gauges read from the index holder when /metrics is scraped. The index gauges exist only
/// while an index is served; `calldir_index_info` is re-registered when the checksum or path
/// changes. One lock per scrape, never on the request path.
final class ScrapeGauges: Sendable {
    private struct IndexGauges {
        var entries: [(String, ScrapeGauge)]
        var info: ScrapeGauge
        var infoLabels: [String]
        var buildTime, age, loaded: ScrapeGauge
    }

    private let registry: PrometheusCollectorRegistry
    private let mapped: ScrapeGauge
    private let ready: ScrapeGauge
    private let index = Mutex<IndexGauges?>(nil)

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        mapped = ScrapeGauge(registry, "calldir_index_mapped", help: "Indexes mapped right now (at most 2, during a reload).")
        ready = ScrapeGauge(registry, "calldir_index_ready", help: "1 when a verified index is being served.")
    }

    /// Sets every gauge from `holder`, then emits while holding the lock (so concurrent scrapes
    /// never see a half-updated set).
    func refresh(from holder: IndexHolder, emit: () -> String) -> String {
        let loaded = holder.snapshot
        mapped.meter.set(holder.mappedCount)
        ready.meter.set(loaded == nil ? 0 : 1)
        return index.withLock { gauges in
            guard let loaded else {
                if let old = gauges { unregister(old) }
                gauges = nil
                return emit()
            }
            var current = gauges ?? make(loaded)
            let labels = [loaded.checksum, loaded.index.path]
            if current.infoLabels != labels {
                registry.unregisterGauge(current.info.entry)
                current.info = infoGauge(loaded)
                current.infoLabels = labels
            }
            set(current, from: loaded)
            gauges = current
            return emit()
        }
    }

    private func set(_ gauges: IndexGauges, from loaded: LoadedIndex) {
        let index = loaded.index
        let counts = [index.blockedCount, index.identifiedCount, index.blockedRangeCount, index.identifiedRangeCount]
        for ((_, gauge), count) in zip(gauges.entries, counts) { gauge.meter.set(count) }
        gauges.info.meter.set(1)
        gauges.buildTime.meter.set(loaded.buildTime)
        let now = Int64(time(nil))
        gauges.age.meter.set(max(0, now - (loaded.buildTime > 0 ? loaded.buildTime : loaded.fileTime)))
        gauges.loaded.meter.set(max(0, now - loaded.loadedAt))
    }

    private func make(_ loaded: LoadedIndex) -> IndexGauges {
        let entries = ["blocked", "identified", "blocked_ranges", "identified_ranges"].map { kind in
            (kind, ScrapeGauge(registry, "calldir_index_entries", [("kind", kind)],
                               help: "Entries in the loaded index, by kind (a range counts once)."))
        }
        return IndexGauges(
            entries: entries, info: infoGauge(loaded), infoLabels: [loaded.checksum, loaded.index.path],
            buildTime: ScrapeGauge(registry, "calldir_index_build_time_seconds",
                                   help: "Build time recorded in the index (Unix seconds; 0 when not recorded)."),
            age: ScrapeGauge(registry, "calldir_index_age_seconds",
                             help: "Seconds since the index was built (its recorded build time, else the file's modification time)."),
            loaded: ScrapeGauge(registry, "calldir_index_loaded_seconds", help: "Seconds since this index was loaded by the daemon."))
    }

    private func infoGauge(_ loaded: LoadedIndex) -> ScrapeGauge {
        ScrapeGauge(registry, "calldir_index_info", [("checksum", loaded.checksum), ("path", loaded.index.path)],
                    help: "The loaded index's identity: its content checksum.")
    }

    private func unregister(_ gauges: IndexGauges) {
        for gauge in gauges.entries.map(\.1) + [gauges.info, gauges.buildTime, gauges.age, gauges.loaded] {
            registry.unregisterGauge(gauge.entry)
        }
    }
}
