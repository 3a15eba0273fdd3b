#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A relaxed atomic counter. A class, so counters can live in arrays (Atomic is not copyable).
public final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    public init() {}

    @inline(__always)
    public func increment(by amount: Int = 1) { value.wrappingAdd(amount, ordering: .relaxed) }

    public var count: Int { value.load(ordering: .relaxed) }
}

/// The routes /metrics counts requests by.
public enum Route: Int, CaseIterable, Sendable {
    case lookup, batch, healthz, metrics, other

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

/// Counters for /metrics, rendered in the Prometheus text format (version 0.0.4) without any
/// metrics library: requests by route and status, a latency histogram, lookups by result,
/// reloads and failed reloads; index facts are read from the holder at scrape time.
public final class Metrics: Sendable {
    /// Every status the server sends; anything else would be counted as "other".
    static let statuses = [200, 400, 404, 405, 413, 431, 500, 503]
    /// Histogram bucket upper bounds, in seconds and nanoseconds.
    static let bucketSeconds = ["0.00005", "0.0001", "0.00025", "0.0005", "0.001", "0.002", "0.005", "0.01", "0.05", "0.25"]
    static let bucketNanoseconds: [Int64] = [50_000, 100_000, 250_000, 500_000, 1_000_000, 2_000_000, 5_000_000,
                                             10_000_000, 50_000_000, 250_000_000]

    /// [route][status index], the last status slot is "other".
    let requests: [[Counter]]
    /// Per bucket (not cumulative; summed at render time), plus +Inf.
    let latencyBuckets: [Counter]
    let latencySumNanoseconds = Counter()
    let latencyCount = Counter()
    public let lookupsBlock = Counter()
    public let lookupsIdentify = Counter()
    public let lookupsAllow = Counter()
    public let lookupsInvalid = Counter()
    public let reloads = Counter()
    public let reloadFailures = Counter()
    public let timeouts = Counter()
    /// Requests whose head has arrived and whose answer is not yet written (a gauge).
    public let inFlight = Counter()

    public init() {
        requests = Route.allCases.map { _ in (0...Metrics.statuses.count).map { _ in Counter() } }
        latencyBuckets = (0...Metrics.bucketNanoseconds.count).map { _ in Counter() }
    }

    /// Counts one answered request and how long it took (from its head to its response).
    @inline(__always)
    public func record(route: Route, status: Int, nanoseconds: Int64) {
        let slot = Metrics.statuses.firstIndex(of: status) ?? Metrics.statuses.count
        requests[route.rawValue][slot].increment()
        var bucket = 0
        while bucket < Metrics.bucketNanoseconds.count && nanoseconds > Metrics.bucketNanoseconds[bucket] { bucket += 1 }
        latencyBuckets[bucket].increment()
        latencySumNanoseconds.increment(by: Int(nanoseconds))
        latencyCount.increment()
    }

    public func requestCount(route: Route, status: Int) -> Int {
        let slot = Metrics.statuses.firstIndex(of: status) ?? Metrics.statuses.count
        return requests[route.rawValue][slot].count
    }

    /// The /metrics page.
    public func render(holder: IndexHolder) -> String {
        var out = ""
        family(&out, "calldir_http_requests_total", "counter", "HTTP requests answered, by route and status.")
        for route in Route.allCases {
            for (slot, counter) in requests[route.rawValue].enumerated() where counter.count > 0 {
                let status = slot < Metrics.statuses.count ? String(Metrics.statuses[slot]) : "other"
                out += "calldir_http_requests_total{route=\"\(route.label)\",status=\"\(status)\"} \(counter.count)\n"
            }
        }
        family(&out, "calldir_http_request_duration_seconds", "histogram",
               "Time from a request's head to its response being written, in seconds.")
        var cumulative = 0
        for (i, bound) in Metrics.bucketSeconds.enumerated() {
            cumulative += latencyBuckets[i].count
            out += "calldir_http_request_duration_seconds_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        let total = latencyCount.count
        out += "calldir_http_request_duration_seconds_bucket{le=\"+Inf\"} \(total)\n"
        out += "calldir_http_request_duration_seconds_sum \(seconds(latencySumNanoseconds.count))\n"
        out += "calldir_http_request_duration_seconds_count \(total)\n"

        family(&out, "calldir_lookups_total", "counter", "Numbers looked up (single and batch), by result.")
        for (result, counter) in [("block", lookupsBlock), ("identify", lookupsIdentify), ("allow", lookupsAllow),
                                  ("invalid", lookupsInvalid)] {
            out += "calldir_lookups_total{result=\"\(result)\"} \(counter.count)\n"
        }
        family(&out, "calldir_index_reloads_total", "counter", "Indexes loaded and verified (the first load included).")
        out += "calldir_index_reloads_total \(reloads.count)\n"
        family(&out, "calldir_index_reload_failures_total", "counter", "Replacement indexes refused (missing or damaged).")
        out += "calldir_index_reload_failures_total \(reloadFailures.count)\n"
        family(&out, "calldir_request_timeouts_total", "counter", "Connections closed for being idle or too slow to send a request.")
        out += "calldir_request_timeouts_total \(timeouts.count)\n"
        family(&out, "calldir_http_requests_in_flight", "gauge", "Requests received in part or whole and not yet answered.")
        out += "calldir_http_requests_in_flight \(inFlight.count)\n"
        family(&out, "calldir_index_mapped", "gauge", "Indexes mapped right now (at most 2, during a reload).")
        out += "calldir_index_mapped \(holder.mappedCount)\n"
        family(&out, "calldir_index_ready", "gauge", "1 when a verified index is being served.")
        guard let loaded = holder.snapshot else {
            out += "calldir_index_ready 0\n"
            return out
        }
        out += "calldir_index_ready 1\n"
        renderIndex(loaded, into: &out)
        return out
    }

    private func renderIndex(_ loaded: LoadedIndex, into out: inout String) {
        let index = loaded.index
        family(&out, "calldir_index_entries", "gauge", "Entries in the loaded index, by kind (a range counts once).")
        for (kind, count) in [("blocked", index.blockedCount), ("identified", index.identifiedCount),
                              ("blocked_ranges", index.blockedRangeCount), ("identified_ranges", index.identifiedRangeCount)] {
            out += "calldir_index_entries{kind=\"\(kind)\"} \(count)\n"
        }
        family(&out, "calldir_index_info", "gauge", "The loaded index's identity: its content checksum.")
        out += "calldir_index_info{checksum=\"\(loaded.checksum)\",path=\"\(escapeLabel(index.path))\"} 1\n"
        family(&out, "calldir_index_build_time_seconds", "gauge", "Build time recorded in the index (Unix seconds; 0 when not recorded).")
        out += "calldir_index_build_time_seconds \(loaded.buildTime)\n"
        let now = Int64(time(nil))
        family(&out, "calldir_index_age_seconds", "gauge",
               "Seconds since the index was built (its recorded build time, else the file's modification time).")
        out += "calldir_index_age_seconds \(max(0, now - (loaded.buildTime > 0 ? loaded.buildTime : loaded.fileTime)))\n"
        family(&out, "calldir_index_loaded_seconds", "gauge", "Seconds since this index was loaded by the daemon.")
        out += "calldir_index_loaded_seconds \(max(0, now - loaded.loadedAt))\n"
    }

    private func family(_ out: inout String, _ name: String, _ type: String, _ help: String) {
        out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    private func seconds(_ nanoseconds: Int) -> String {
        let whole = nanoseconds / 1_000_000_000
        let fraction = String(nanoseconds % 1_000_000_000)
        return "\(whole)." + String(repeating: "0", count: 9 - fraction.count) + fraction
    }

    private func escapeLabel(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(c)
            }
        }
        return out
    }
}
