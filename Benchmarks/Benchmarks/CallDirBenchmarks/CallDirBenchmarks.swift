import Benchmark
import CallDir
import CallDirReader
import Foundation

// The issue 5 suite: compile throughput, index size, compile memory, lookup latency and
// bulk lookup throughput, at 1M and 10M entries. Run from Benchmarks/:
//     swift package benchmark                     (everything; first run generates data)
//     swift package benchmark --filter "Compile"  (one group)
// Release builds only (the plugin builds them). docs/BENCHMARKS.md has the results and the
// comparison with sqlite3, tinycdb and look (Benchmarks/scripts/compare.py).

let entriesPerSecond = BenchmarkMetric.custom("entries/s", polarity: .prefersLarger, useScalingFactor: false)
let bytesPer100Entries = BenchmarkMetric.custom("index bytes per 100 entries", useScalingFactor: false)
let lookupsPerSecond = BenchmarkMetric.custom("lookups/s", polarity: .prefersLarger, useScalingFactor: false)

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident],
        warmupIterations: 1, maxDuration: .seconds(10), maxIterations: 10)

    for count in [1_000_000, 10_000_000] {
        let millions = "\(count / 1_000_000)M"
        for labels in [false, true] {
            let kind = labels ? "identification" : "blocking"
            Benchmark("Compile \(millions) \(kind) list", configuration: .init(
                metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident, entriesPerSecond, bytesPer100Entries],
                warmupIterations: 1, maxDuration: .seconds(15), maxIterations: count > 1_000_000 ? 5 : 10)
            ) { benchmark, list in
                let output = "\(Fixtures.folder)/compiled-\(millions)-\(kind).calldir"
                benchmark.startMeasurement()
                guard let summary = try? Fixtures.compile(list, labels: labels, to: output) else {
                    benchmark.error("compile failed")
                    return
                }
                benchmark.stopMeasurement()
                benchmark.measurement(entriesPerSecond, Int(Double(count) / summary.seconds))
                benchmark.measurement(bytesPer100Entries, summary.fileBytes * 100 / count)
            } setup: {
                Fixtures.list(count, labels: labels)
            }
        }

        // One lookup at a time on random members (hits) or random other valid numbers (misses):
        // wall clock is per lookup (1,000 per iteration). The index is mapped and in the page
        // cache; which blocks are in the CPU caches is up to the random keys.
        for hits in [true, false] {
            Benchmark("Lookup \(hits ? "hit" : "miss"), \(millions) index", configuration: .init(
                metrics: [.wallClock, .mallocCountTotal], timeUnits: .nanoseconds, warmupIterations: 10,
                scalingFactor: .kilo, maxDuration: .seconds(3))
            ) { benchmark, fixture in
                let (index, queries) = fixture
                var i = 0
                for _ in benchmark.scaledIterations {
                    blackHole(try? index.lookup(queries[i & (queries.count - 1)]))
                    i &+= 1
                }
            } setup: {
                (try CallDirIndex(path: Fixtures.index(count), verify: true),
                 Fixtures.queries(1 << 16, against: count, hitPercent: hits ? 100 : 0))
            }
        }

        // 1M queries, half of them members: lookup(_:) in a loop, and the batch lookup.
        for batch in [false, true] {
            Benchmark("Bulk lookups, \(millions) index, \(batch ? "batch API" : "one by one")", configuration: .init(
                metrics: [.wallClock, .mallocCountTotal, lookupsPerSecond], warmupIterations: 1,
                maxDuration: .seconds(10), maxIterations: 10)
            ) { benchmark, fixture in
                let (index, queries) = fixture
                var listed = 0
                benchmark.startMeasurement()
                let started = DispatchTime.now().uptimeNanoseconds
                if batch {
                    try? queries.withUnsafeBufferPointer { try index.lookup($0) { if $0.isListed { listed += 1 } } }
                } else {
                    for q in queries where (try? index.lookup(q))?.isListed == true { listed += 1 }
                }
                let elapsed = DispatchTime.now().uptimeNanoseconds - started
                benchmark.stopMeasurement()
                precondition(listed == queries.count / 2, "wrong answers: \(listed) listed")
                benchmark.measurement(lookupsPerSecond, Int(Double(queries.count) * 1e9 / Double(elapsed)))
            } setup: {
                (try CallDirIndex(path: Fixtures.index(count), verify: true),
                 Fixtures.queries(1_000_000, against: count, hitPercent: 50))
            }
        }
    }
}
