import CallDirReader
import CallDirSimulator
import Testing
import TestSupport

/// For random indexes and request sizes, whatever sequence of complete, incremental, failed
/// and unseen requests the device goes through, a loader driven as docs/CALLKIT.md says ends with
/// the device holding exactly the index's entries, and CallKit never reports an error of its
/// own (only the interruptions the test injects).
@Suite("Device loading properties")
struct DevicePropertyTests {
    static let base: Int64 = 33_100_000_000
    static let labels = ["Spam", "Scam", "Bank", "Survey", "Charity"]

    /// A random list and the device state it must produce, worked out here from the rules
    /// (union per kind; exact label, else the narrowest covering range's).
    struct Case {
        var block: [String] = []
        var identify: [String] = []
        var expected = DeviceState()
    }

    static func randomCase(_ rng: inout SeededGenerator) -> Case {
        var c = Case()
        let span = Int64.random(in: 200...4_000, using: &rng)
        func number() -> Int64 { base + Int64.random(in: 0..<span, using: &rng) }
        var blocked = Set<Int64>()
        for _ in 0..<Int.random(in: 0...300, using: &rng) {
            let n = number()
            blocked.insert(n)
            c.block.append(String(n))
        }
        for _ in 0..<Int.random(in: 0...6, using: &rng) {
            let first = number()
            let last = first + Int64.random(in: 0...700, using: &rng)
            blocked.formUnion(first...last)
            c.block.append("\(first)-\(last)")
        }
        c.expected.blocking = blocked.sorted()
        // Identification ranges of distinct lengths, so "the narrower wins" has one answer.
        var lengths = Array(Int64(1)...900).shuffled(using: &rng).prefix(Int.random(in: 0...5, using: &rng))
        var ranges: [(ClosedRange<Int64>, String)] = []
        while let length = lengths.popLast() {
            let first = number()
            let label = labels.randomElement(using: &rng)!
            ranges.append((first...(first + length - 1), label))
            c.identify.append("\(first)-\(first + length - 1),\(label)")
        }
        for (range, label) in ranges.sorted(by: { $0.0.count > $1.0.count }) {
            for n in range { c.expected.identification[n] = label }  // narrower ranges overwrite
        }
        var exact = Set<Int64>()
        for _ in 0..<Int.random(in: 0...300, using: &rng) {
            let n = number()
            guard exact.insert(n).inserted else { continue }
            let label = labels.randomElement(using: &rng)! + " \(n % 7)"
            c.expected.identification[n] = label
            c.identify.append("\(n),\(label)")
        }
        return c
    }

    @Test("random indexes, request sizes, app- and system-run requests failing at random points: the device ends with exactly the index", arguments: 0..<24)
    func randomLoads(seed: UInt64) throws {
        var rng = SeededGenerator(seed: 0xCA11 &+ seed &* 7_919)
        let folder = TempFolder()
        defer { folder.remove() }
        let cases = [Self.randomCase(&rng), Self.randomCase(&rng)]
        let indexes = try cases.enumerated().map { try buildIndex(folder, "\($0.offset).calldir", block: $0.element.block, identify: $0.element.identify) }
        let simulator = CallKitSimulator()
        var records = ProtocolRecords()
        // The first index, then (a new one ships) the second: requests before and after each finished load.
        for (index, expected) in zip(indexes, cases.map(\.expected)) {
            let total = Int(index.metadata.deviceEntries)
            let size = Bool.random(using: &rng) ? Int.random(in: 1...max(1, total / 4 + 1), using: &rng)
                                                : Int.random(in: 1...(total + 10), using: &rng)
            let loader = try DeviceLoader(index: index, requestSize: max(size, total / 40))
            let run = try randomProtocolRun(loader, simulator, &records, expected: expected,
                                            requests: Int.random(in: 0...60, using: &rng), rng: &rng)
            #expect(run.holes == 0, "the app believed the load finished while the device held other entries")
            #expect(run.finished)
            #expect(DeviceState(simulator) == expected)
            #expect(simulator.entryCount == index.metadata.deviceEntries)
        }
        // Every failure is one the test injected (killed, interrupted): never CallKit rejecting a call.
        #expect(simulator.history.allSatisfy { $0.failure == nil || $0.failure!.code == .loadingInterrupted })
    }

    @Test("the old example's ordering (checkpoint written after feeding) loses entries when a system-run request fails; the under-way record does not")
    func oldOrderingLosesEntries() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let index = try buildIndex(folder, "i.calldir", block: ["33100000000-33100004499"])
        let loader = try DeviceLoader(index: index, requestSize: 1_000)
        var expected = DeviceState()
        expected.blocking = Array(33_100_000_000...33_100_004_499)
        for oldOrdering in [true, false] {
            let simulator = CallKitSimulator()
            var records = ProtocolRecords()
            // The app loads two requests, each committed.
            for _ in 0..<2 {
                let outcome = try extensionRequest(loader, simulator, &records, fate: .succeeds, oldOrdering: oldOrdering,
                                                   incremental: !simulator.history.isEmpty)
                appAfterRequest(&records, reportsSuccess: outcome.reportsSuccess)
            }
            // The system starts the extension on its own (after a reboot); it is killed mid-feed:
            // CallKit deletes every entry, and the app never hears of it.
            _ = try extensionRequest(loader, simulator, &records, fate: .killedWhileFeeding, killAfter: 500,
                                     oldOrdering: oldOrdering, incremental: true)
            #expect(simulator.entryCount == 0)
            // The app resumes; isIncremental still reads true over the empty store.
            for _ in 0..<20 where !records.appBelievesFinished(loader.index) {
                let outcome = try extensionRequest(loader, simulator, &records, fate: .succeeds, oldOrdering: oldOrdering, incremental: true)
                appAfterRequest(&records, reportsSuccess: outcome.reportsSuccess)
            }
            #expect(records.appBelievesFinished(loader.index))
            if oldOrdering {
                #expect(simulator.entryCount == 2_500, "the first 2,000 entries are never loaded again")
            } else {
                #expect(DeviceState(simulator) == expected)
            }
        }
        // And over many random runs: the old ordering ends with lost entries, the new one never.
        var rng = SeededGenerator(seed: 0x01D)
        var oldHoles = 0
        for _ in 0..<6 {
            let simulator = CallKitSimulator()
            var records = ProtocolRecords()
            oldHoles += try randomProtocolRun(loader, simulator, &records, expected: expected, requests: 40, oldOrdering: true, rng: &rng).holes
            let fresh = CallKitSimulator()
            var newRecords = ProtocolRecords()
            #expect(try randomProtocolRun(loader, fresh, &newRecords, expected: expected, requests: 40, rng: &rng).holes == 0)
        }
        #expect(oldHoles > 0)
    }
}
