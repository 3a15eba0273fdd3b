import CallDir
import CallDirReader
import Testing

/// For random indexes and request sizes, whatever sequence of complete, incremental, failed
/// and unseen requests the device goes through, a loader driven as the README says ends with
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

    @Test("random indexes, request sizes and request outcomes: the device ends with exactly the index", arguments: 0..<24)
    func randomLoads(seed: UInt64) throws {
        var rng = SeededGenerator(seed: 0xCA11 &+ seed &* 7_919)
        let folder = TempFolder()
        defer { folder.remove() }
        let cases = [Self.randomCase(&rng), Self.randomCase(&rng)]
        let indexes = try cases.enumerated().map { try compileIndex(folder, "\($0.offset).calldir", block: $0.element.block, identify: $0.element.identify) }
        let simulator = CallKitSimulator()
        var current = 0  // the index the app ships; it may switch to the second one midway
        var committed: [UInt8]?
        var pendingLeftOver: [UInt8]?
        var finished = false
        var injected = 0
        for request in 0..<2_000 {
            let index = indexes[current]
            let total = Int(index.metadata.deviceEntries)
            let size = Bool.random(using: &rng) ? Int.random(in: 1...max(1, total / 4 + 1), using: &rng)
                                                : Int.random(in: 1...(total + 10), using: &rng)
            let loader = try DeviceLoader(index: index, requestSize: max(size, total / 40))
            simulator.beginRequest(systemSaysIncremental: request > 0 && Int.random(in: 0..<10, using: &rng) < 8)
            let start = LoadCheckpoint.resumePoint(committed: committed, pendingLeftOver: pendingLeftOver)
            let step = try loader.loadRequest(into: simulator, resumingFrom: start)
            #expect(step.entries <= loader.requestSize)
            let pending = step.checkpoint.bytes  // the extension writes it for the app
            switch Int.random(in: 0..<10, using: &rng) {
            case 0:  // the extension is killed: the app sees the failure, discards both checkpoints
                simulator.interrupt()
                injected += 1
                committed = nil
                pendingLeftOver = nil
            case 1:  // the system ran the request on its own: nobody commits the pending checkpoint
                #expect(simulator.endRequest().failure == nil)
                pendingLeftOver = pending
            default:
                let report = simulator.endRequest()
                #expect(report.failure == nil, "\(report.failure!)")
                guard report.failure == nil else { return }
                committed = pending
                pendingLeftOver = nil
                finished = step.isFinished
            }
            if current == 0, Int.random(in: 0..<12, using: &rng) == 0 {
                current = 1  // a new index ships; finishing the old one no longer counts
                finished = false
            }
            if finished { break }
        }
        #expect(finished)
        #expect(simulator.history.filter { !$0.succeeded }.count == injected)
        #expect(DeviceState(simulator) == cases[current].expected)
        #expect(simulator.entryCount == indexes[current].metadata.deviceEntries)
    }
}
