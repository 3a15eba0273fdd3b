import CoreMetrics
import Prometheus

/// A counter of the daemon: a swift-metrics `Counter` backed by a swift-prometheus counter (one
/// relaxed atomic add per increment, no lock). `count` reads the value back from the exporter's
/// own text (the handler has no getter), so what a test asserts is what /metrics serves.
package final class MetricCounter: Sendable {
    private let counter: CoreMetrics.Counter
    private let registry: PrometheusCollectorRegistry
    private let series: ExportedSeries

    init(_ registry: PrometheusCollectorRegistry, _ name: String, _ labels: [(String, String)] = [], help: String) {
        self.registry = registry
        series = ExportedSeries(name: name, labels: labels)
        counter = CoreMetrics.Counter(label: name, dimensions: labels,
                                      handler: registry.makeCounter(descriptor: .init(name, help: help), labels: labels))
    }

    @inline(__always)
    package func increment(by amount: Int = 1) { counter.increment(by: amount) }

    package var count: Int { series.value(in: registry) }
}

/// A gauge moved up and down on the hot path (requests in flight): a swift-metrics `Meter`
/// backed by a swift-prometheus gauge (a compare-and-swap loop on one atomic, no lock).
package final class MetricGauge: Sendable {
    private let meter: Meter
    private let registry: PrometheusCollectorRegistry
    private let series: ExportedSeries

    init(_ registry: PrometheusCollectorRegistry, _ name: String, help: String) {
        self.registry = registry
        series = ExportedSeries(name: name, labels: [])
        meter = Meter(label: name, dimensions: [], handler: registry.makeGauge(descriptor: .init(name, help: help)))
    }

    /// Negative amounts move the gauge down.
    @inline(__always)
    package func increment(by amount: Int = 1) {
        if amount >= 0 { meter.increment(by: Double(amount)) } else { meter.decrement(by: Double(-amount)) }
    }

    package var count: Int { series.value(in: registry) }
}

/// One series as the registry writes it (`name{k="v",...} value`), to read its value back.
struct ExportedSeries: Sendable {
    private let prefix: String

    /// The daemon's counter labels are fixed identifiers: nothing to escape.
    init(name: String, labels: [(String, String)]) {
        let pairs = labels.map { key, value in "\(key)=\"\(value)\"" }
        prefix = labels.isEmpty ? name + " " : name + "{" + pairs.joined(separator: ",") + "} "
    }

    /// The series' value in the registry's page (0 when absent; gauges are written as doubles).
    func value(in registry: PrometheusCollectorRegistry) -> Int {
        for line in registry.emitToString().split(separator: "\n") where line.hasPrefix(prefix) {
            return Double(line.dropFirst(prefix.count)).map { Int($0) } ?? 0
        }
        return 0
    }
}

/// The routes /metrics counts requests by.
public enum Route: Int, CaseIterable, Sendable {
    /// `GET /v1/lookup/{number}`.
    case lookup
    /// `POST /v1/lookup`.
    case batch
    /// `GET /healthz`.
    case healthz
    /// `GET /metrics`.
    case metrics
    /// Anything else (404s).
    case other

    var label: String {
        switch self {
        case .lookup: return "lookup"
        case .batch: return "batch"
        case .healthz: return "healthz"
        case .metrics: return "metrics"
        case .other: return "other"
        }
    }
}

/// The daemon's metrics: swift-metrics instruments whose handlers live in this instance's own
/// swift-prometheus registry (not the process-wide default, so servers in one test process never
/// share counters), exported by that registry for /metrics (MetricsExport.swift). Requests by
/// route and status, a latency histogram, lookups by result, reloads and failed reloads; index
/// facts are set from the holder at scrape time.
package final class Metrics: Sendable {
    /// Every status the server sends; anything else is counted as "other".
    static let statuses = [200, 400, 404, 405, 413, 431, 500, 503]
    /// Histogram bucket upper bounds (rendered 0.00005 ... 0.25 seconds).
    static let bucketNanoseconds: [Int64] = [50_000, 100_000, 250_000, 500_000, 1_000_000, 2_000_000, 5_000_000,
                                             10_000_000, 50_000_000, 250_000_000]

    let registry = PrometheusCollectorRegistry()
    /// [route][status index], the last status slot is "other". Made up front (so they export as
    /// 0 until used), which keeps the hot path free of look-ups and locks.
    let requests: [[MetricCounter]]
    /// swift-prometheus's histogram takes its own (uncontended with one event loop) lock per
    /// record; docs/BENCHMARKS-LOG.md has the measured cost.
    let latency: CoreMetrics.Timer
    package let lookupsBlock: MetricCounter
    package let lookupsIdentify: MetricCounter
    package let lookupsAllow: MetricCounter
    package let lookupsInvalid: MetricCounter
    package let reloads: MetricCounter
    package let reloadFailures: MetricCounter
    package let timeouts: MetricCounter
    /// Requests whose head has arrived and whose answer is not yet written.
    package let inFlight: MetricGauge
    /// The gauges set from the index holder at scrape time.
    let scrape: ScrapeGauges
    /// The followed feed's state (serve --follow), shown on /healthz and /metrics.
    package let feed = FeedStatus()
    /// The feed's families, set from `feed` at scrape time.
    let feedGauges: FeedGauges

    package init() {
        let registry = self.registry
        requests = Route.allCases.map { route in
            (0...Metrics.statuses.count).map { slot in
                let status = slot < Metrics.statuses.count ? String(Metrics.statuses[slot]) : "other"
                return MetricCounter(registry, "calldir_http_requests_total", [("route", route.label), ("status", status)],
                                     help: "HTTP requests answered, by route and status.")
            }
        }
        let histogram = registry.makeDurationHistogram(
            descriptor: .init("calldir_http_request_duration_seconds",
                              help: "Time from a request's head to its response being written, in seconds."),
            buckets: Metrics.bucketNanoseconds.map { .nanoseconds($0) })
        latency = CoreMetrics.Timer(label: "calldir_http_request_duration_seconds", dimensions: [], handler: histogram)
        let lookups = { (result: String) in
            MetricCounter(registry, "calldir_lookups_total", [("result", result)],
                          help: "Numbers looked up (single and batch), by result.")
        }
        lookupsBlock = lookups("block")
        lookupsIdentify = lookups("identify")
        lookupsAllow = lookups("allow")
        lookupsInvalid = lookups("invalid")
        reloads = MetricCounter(registry, "calldir_index_reloads_total",
                                help: "Indexes loaded and verified (the first load included).")
        reloadFailures = MetricCounter(registry, "calldir_index_reload_failures_total",
                                       help: "Replacement indexes refused (missing or damaged).")
        timeouts = MetricCounter(registry, "calldir_request_timeouts_total",
                                 help: "Connections closed for being idle or too slow to send a request.")
        inFlight = MetricGauge(registry, "calldir_http_requests_in_flight",
                               help: "Requests received in part or whole and not yet answered.")
        scrape = ScrapeGauges(registry: registry)
        feedGauges = FeedGauges(registry: registry)
    }

    /// Counts one answered request and how long it took (from its head to its response).
    @inline(__always)
    package func record(route: Route, status: Int, nanoseconds: Int64) {
        let slot = Metrics.statuses.firstIndex(of: status) ?? Metrics.statuses.count
        requests[route.rawValue][slot].increment()
        latency.recordNanoseconds(max(0, nanoseconds))
    }

    package func requestCount(route: Route, status: Int) -> Int {
        let slot = Metrics.statuses.firstIndex(of: status) ?? Metrics.statuses.count
        return requests[route.rawValue][slot].count
    }
}

extension MetricNameDescriptor {
    /// A metric named in full (`calldir_http_requests_total`): swift-prometheus builds names
    /// from parts, and an empty part is left out.
    init(_ name: String, help: String) {
        self.init(metricName: name, unitName: "", helpText: help)
    }
}
