import CallDirReader
import CallDirSimulator
import Testing
import TestSupport

/// For random pairs of indexes OLD and NEW (ranges that grow, shrink, split, merge and vanish,
/// labels that change, exact numbers inside ranges, empty kinds), random request sizes and
/// injected failures: a device that held OLD and is driven as docs/CALLKIT.md says ends with
/// exactly NEW's entries, the same as a complete load of NEW into a fresh simulator; and
/// without failures the update sends exactly the set differences, never more.
@Suite("Device update properties")
struct DeviceUpdatePropertyTests {
    static let base: Int64 = 33_100_000_000
    static let labels = ["Spam", "Scam", "Bank", "Survey", "Charity"]

    /// A list as ranges and exact numbers, so that NEW can be a mutation of OLD.
    struct Spec {
        var blockRanges: [ClosedRange<Int64>] = []
        var blockExact = Set<Int64>()
        var identifyRanges: [(range: ClosedRange<Int64>, label: String)] = []
        var identifyExact: [Int64: String] = [:]

        var blockLines: [String] { blockRanges.map { "\($0.lowerBound)-\($0.upperBound)" } + blockExact.map(String.init) }
        var identifyLines: [String] {
            identifyRanges.map { "\($0.range.lowerBound)-\($0.range.upperBound),\($0.label)" } + identifyExact.map { "\($0.key),\($0.value)" }
        }
    }

    static func randomRanges(_ rng: inout SeededGenerator, span: Int64) -> [ClosedRange<Int64>] {
        var ranges: [ClosedRange<Int64>] = []
        var at = base + Int64.random(in: 0...50, using: &rng)
        for _ in 0..<Int.random(in: 0...6, using: &rng) {
            let length = Int64.random(in: 1...600, using: &rng)
            guard at + length < base + span else { break }
            ranges.append(at...(at + length - 1))
            at += length + Int64.random(in: 0...300, using: &rng)  // 0: touching ranges
        }
        return ranges
    }

    static func randomSpec(_ rng: inout SeededGenerator, span: Int64) -> Spec {
        var spec = Spec()
        guard Int.random(in: 0..<8, using: &rng) != 0 else { return spec }  // sometimes empty
        let number = { (rng: inout SeededGenerator) in base + Int64.random(in: 0..<span, using: &rng) }
        if Int.random(in: 0..<6, using: &rng) != 0 {
            spec.blockRanges = randomRanges(&rng, span: span)
            for _ in 0..<Int.random(in: 0...150, using: &rng) { spec.blockExact.insert(number(&rng)) }
        }
        if Int.random(in: 0..<6, using: &rng) != 0 {
            spec.identifyRanges = randomRanges(&rng, span: span).map { ($0, labels.randomElement(using: &rng)!) }
            for _ in 0..<Int.random(in: 0...150, using: &rng) {
                spec.identifyExact[number(&rng)] = labels.randomElement(using: &rng)! + " \(Int.random(in: 0...2, using: &rng))"
            }
        }
        return spec
    }

    /// One range's fate: kept, grown, shrunk, split, vanished or merged with the next one.
    static func mutate(_ ranges: [ClosedRange<Int64>], _ rng: inout SeededGenerator) -> [ClosedRange<Int64>] {
        var out: [ClosedRange<Int64>] = []
        var i = 0
        while i < ranges.count {
            let r = ranges[i]
            let (lo, hi) = (r.lowerBound, r.upperBound)
            switch Int.random(in: 0..<10, using: &rng) {
            case 0: out.append((lo - Int64.random(in: 0...40, using: &rng))...(hi + Int64.random(in: 1...40, using: &rng)))
            case 1 where r.count > 20: out.append((lo + Int64.random(in: 0...9, using: &rng))...(hi - Int64.random(in: 1...9, using: &rng)))
            case 2 where r.count > 20:
                let cut = lo + Int64(r.count / 2)
                out += [lo...(cut - 1), (cut + Int64.random(in: 1...5, using: &rng))...hi]
            case 3: break  // vanishes
            case 4 where i + 1 < ranges.count:
                out.append(lo...ranges[i + 1].upperBound)
                i += 1
            default: out.append(r)
            }
            i += 1
        }
        return out
    }

    static func mutate(_ old: Spec, _ rng: inout SeededGenerator, span: Int64) -> Spec {
        var new = old
        new.blockRanges = mutate(old.blockRanges, &rng)
        let labelsByRange = old.identifyRanges.map { $0.label }
        let mutated = mutate(old.identifyRanges.map { $0.range }, &rng)
        new.identifyRanges = []
        var previousLast = Int64.min
        for (i, r) in mutated.enumerated() {  // identification ranges kept disjoint
            let first = max(r.lowerBound, previousLast + 1)
            guard first <= r.upperBound else { continue }
            let keep = i < labelsByRange.count && Int.random(in: 0..<4, using: &rng) != 0
            new.identifyRanges.append((first...r.upperBound, keep ? labelsByRange[i] : labels.randomElement(using: &rng)!))
            previousLast = r.upperBound
        }
        for n in old.blockExact where Int.random(in: 0..<10, using: &rng) == 0 { new.blockExact.remove(n) }
        for (n, _) in old.identifyExact {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0: new.identifyExact[n] = nil
            case 1: new.identifyExact[n] = labels.randomElement(using: &rng)!
            default: break
            }
        }
        let added = randomSpec(&rng, span: span)
        new.blockExact.formUnion(added.blockExact.prefix(Int.random(in: 0...20, using: &rng)))
        for (n, label) in added.identifyExact.prefix(Int.random(in: 0...20, using: &rng)) { new.identifyExact[n] = label }
        if Int.random(in: 0..<10, using: &rng) == 0 { new.blockRanges = []; new.blockExact = [] }  // a kind empties
        return new
    }

    static func build(_ folder: TempFolder, _ name: String, _ spec: Spec) throws -> CallDirIndex {
        try buildIndex(folder, name, block: spec.blockLines, identify: spec.identifyLines)
    }

    static func fullLoad(_ index: CallDirIndex) throws -> (CallKitSimulator, LoadCheckpoint) {
        let simulator = CallKitSimulator()
        let steps = try loadFully(DeviceLoader(index: index, requestSize: 1_000_000), into: simulator)
        return (simulator, steps.last!.checkpoint)
    }

    @Test("random OLD/NEW pairs, request sizes and failures: the device ends with exactly NEW", arguments: 0..<40)
    func randomUpdates(seed: UInt64) throws {
        var rng = SeededGenerator(seed: 0x0DE1_7A &+ seed &* 104_729)
        let folder = TempFolder()
        defer { folder.remove() }
        let span = Int64.random(in: 300...3_000, using: &rng)
        let oldSpec = Self.randomSpec(&rng, span: span)
        let newSpec = Self.mutate(oldSpec, &rng, span: span)
        let old = try Self.build(folder, "old.calldir", oldSpec)
        let new = try Self.build(folder, "new.calldir", newSpec)
        let expected = DeviceState(try Self.fullLoad(new).0)
        let (simulator, finishedOld) = try Self.fullLoad(old)
        let before = DeviceState(simulator)
        let requestsBefore = simulator.history.count

        let failures = seed % 3 == 0  // a third of the runs inject failures, the rest check minimality
        let changes = Self.changes(from: before, to: expected)
        let size = Int.random(in: 1...max(1, changes.removals + changes.additions + 2), using: &rng)
        // With failures, complete loads of NEW follow: a size that lets one finish between them.
        let floor = failures ? Int(new.metadata.deviceEntries) / 6 : (changes.removals + changes.additions) / 60
        let loader = try DeviceLoader(index: new, previous: old, requestSize: max(size, floor))
        var records = ProtocolRecords(committed: finishedOld.bytes)
        if failures {
            // App- and system-run requests failing at random points, before and after the update finished.
            let run = try randomProtocolRun(loader, simulator, &records, expected: expected,
                                            requests: Int.random(in: 0...40, using: &rng), rng: &rng)
            #expect(run.holes == 0 && run.finished)
            #expect(simulator.history.allSatisfy { $0.failure == nil || $0.failure!.code == .loadingInterrupted })
        } else {
            var removed = 0
            var added = 0
            for _ in 0..<5_000 where !records.appBelievesFinished(loader.index) {
                let outcome = try extensionRequest(loader, simulator, &records, fate: .succeeds, incremental: true)
                let step = try #require(outcome.step)
                // A span holds every change of its last number: at most 3 beyond a tiny size.
                #expect(step.entries <= max(loader.requestSize, 3))
                #expect(simulator.history.last!.adds + simulator.history.last!.removes == step.entries)
                removed += step.removals
                added += step.blockingEntries + step.identificationEntries
                appAfterRequest(&records, reportsSuccess: outcome.reportsSuccess)
            }
            let update = changes.removals + changes.additions <= Int(new.metadata.deviceEntries)
            if update {  // every request incremental, and exactly the differences sent
                #expect(simulator.history.dropFirst(requestsBefore).allSatisfy { $0.kind == .incremental })
                #expect(removed == changes.removals && added == changes.additions, "\(changes)")
            } else {  // more changes than NEW's entries: one complete load instead
                #expect(simulator.history[requestsBefore].kind == .complete && removed == 0)
            }
        }
        #expect(DeviceState(simulator) == expected)
        let last = try LoadCheckpoint(bytes: try #require(records.committed))
        #expect(last.update == nil && last.names(new) && last.entriesLoaded == new.metadata.deviceEntries)
    }

    /// The removals and additions a minimal update needs: entries (with their labels) of one
    /// state missing from the other.
    static func changes(from old: DeviceState, to new: DeviceState) -> (removals: Int, additions: Int) {
        let oldBlocking = Set(old.blocking)
        let newBlocking = Set(new.blocking)
        let identificationRemovals = old.identification.filter { new.identification[$0.key] != $0.value }.count
        let identificationAdditions = new.identification.filter { old.identification[$0.key] != $0.value }.count
        return (oldBlocking.subtracting(newBlocking).count + identificationRemovals,
                newBlocking.subtracting(oldBlocking).count + identificationAdditions)
    }
}
