#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BenchmarkTools
import CallDirReader

// `calldir-feed INDEX [--request-size N] [--resume-at ENTRY]`: times the device feed of an
// index (DeviceLoader into a sink that only sums the numbers), as a Call Directory extension
// would run it, and reports entries/s, the feed's memory above the process baseline, and the
// cost of resuming from a checkpoint at entry ENTRY (default: 90% of the entries).
// Release builds only: `swift build -c release --product calldir-feed` in Benchmarks/.

/// A context that does the least a consumer can: it folds every number into a sum (so the
/// feed cannot be optimised away) and counts labels by identity, never copying them.
final class SumSink: CallDirectoryContext {
    var sum: Int64 = 0
    var count = 0
    var isIncremental: Bool { true }
    func addBlockingEntry(withNextSequentialPhoneNumber phoneNumber: Int64) {
        sum &+= phoneNumber
        count &+= 1
    }
    func addIdentificationEntry(withNextSequentialPhoneNumber phoneNumber: Int64, label: String) {
        sum &+= phoneNumber &+ Int64(label.utf8.count)
        count &+= 1
    }
    func removeBlockingEntry(withPhoneNumber phoneNumber: Int64) {}
    func removeAllBlockingEntries() {}
    func removeIdentificationEntry(withPhoneNumber phoneNumber: Int64) {}
    func removeAllIdentificationEntries() {}
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard let path = arguments.first else {
    print("usage: calldir-feed INDEX [--request-size N] [--resume-at ENTRY]")
    exit(64)
}
var requestSize = Int.max
var resumeAt: Int?
var rest = arguments.dropFirst()
while let argument = rest.popFirst() {
    switch argument {
    case "--request-size": requestSize = Int(rest.popFirst() ?? "") ?? 0
    case "--resume-at": resumeAt = Int(rest.popFirst() ?? "")
    default: print("unknown argument \(argument)"); exit(64)
    }
}

do {
    let index = try CallDirIndex(path: path)
    let loader = try DeviceLoader(index: index, requestSize: requestSize)
    let sink = SumSink()
    resetPeak()
    let baseline = memoryKiB()
    var checkpoint: LoadCheckpoint?
    var requests = 0
    let started = now()
    repeat {
        let step = try loader.loadRequest(into: sink, resumingFrom: checkpoint)
        checkpoint = step.checkpoint
        requests += 1
    } while !checkpoint!.isFinished
    let seconds = now() - started
    let after = memoryKiB()
    print("index \(path): \(sink.count) entries in \(requests) request(s) of at most \(requestSize == Int.max ? "all" : String(requestSize))")
    print("feed \(format3(seconds)) s: \(format1(Double(sink.count) / seconds / 1e6)) M entries/s (sum \(sink.sum))")
    print("memory: baseline RSS \(format1(Double(baseline.rss) / 1024)) MiB, peak during the feed \(format1(Double(after.peak) / 1024)) MiB "
          + "(+\(format1(Double(after.peak - baseline.rss) / 1024)) MiB)")

    // Resume: the checkpoint after entry `target`, then one-entry requests from it.
    let total = sink.count
    let target = resumeAt ?? total / 10 * 9
    let prefix = try DeviceLoader(index: index, requestSize: target).loadRequest(into: SumSink(), resumingFrom: nil).checkpoint
    let single = try DeviceLoader(index: index, requestSize: 1)
    var times: [Double] = []
    for _ in 0..<1_001 {
        let probe = SumSink()
        let t0 = now()
        _ = try single.loadRequest(into: probe, resumingFrom: prefix)
        times.append(now() - t0)
    }
    times.sort()
    let first = times.max()!
    print("resume at entry \(target): median \(format1(times[times.count / 2] * 1e6)) µs, slowest \(format1(first * 1e6)) µs "
          + "(1,001 one-entry requests from the checkpoint)")
} catch {
    print("calldir-feed: \(error)")
    exit(2)
}

func format1(_ value: Double) -> String { formatted(value, 1) }
func format3(_ value: Double) -> String { formatted(value, 3) }
func formatted(_ value: Double, _ places: Int) -> String {
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    let whole = Int((value * scale).rounded())
    let text = String(whole)
    guard places > 0 else { return text }
    let padded = String(repeating: "0", count: max(0, places + 1 - text.count)) + text
    return String(padded.dropLast(places)) + "." + String(padded.suffix(places))
}
