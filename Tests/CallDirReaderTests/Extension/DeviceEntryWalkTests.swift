@testable import CallDirReader
import Testing
import TestSupport

/// The walks exports and `verify` take over `DeviceEntryStream` (the one home of device
/// entries): on random indexes they hand out what the rules say a device holds, the joined
/// walk answers as a lookup of the other kind would, the count is the metadata's, and the
/// stored walk interleaves ranges with exact numbers as the exports always wrote them.
@Suite("Device entry walks")
struct DeviceEntryWalkTests {
    @Test("expanded, joined, counted and stored walks agree with the rules and with lookups")
    func walksAgree() throws {
        var rng = SeededGenerator(seed: 26)
        let folder = TempFolder()
        defer { folder.remove() }
        for round in 0..<25 {
            let c = DevicePropertyTests.randomCase(&rng)
            let index = try buildIndex(folder, "w\(round).calldir", block: c.block, identify: c.identify)
            let blocked = DeviceEntryStream(index: index, kind: .blocking)
            let identified = DeviceEntryStream(index: index, kind: .identification)
            var numbers: [Int64] = []
            try blocked.forEach { n, _ in numbers.append(n) }
            #expect(numbers == c.expected.blocking, "round \(round)")
            var labels: [Int64: String] = [:]
            var order: [Int64] = []
            try identified.forEach { n, ref in
                labels[n] = try identified.label(ref)
                order.append(n)
            }
            #expect(labels == c.expected.identification && order == order.sorted(), "round \(round)")
            let blockedCount = try blocked.count(), identifiedCount = try identified.count()
            #expect(blockedCount == Int64(c.expected.blocking.count) && identifiedCount == Int64(labels.count))
            #expect(blockedCount + identifiedCount == index.metadata.deviceEntries)
            var joinedLabels: [String?] = [], lookedUpLabels: [String?] = []
            try blocked.forEach(joining: identified) { n, _, other in
                joinedLabels.append(try other.map(identified.label))
                lookedUpLabels.append(try index.lookup(n).label)
            }
            #expect(joinedLabels == lookedUpLabels, "round \(round)")
            var joinedBlocked: [Bool] = [], lookedUpBlocked: [Bool] = []
            try identified.forEach(joining: blocked) { n, _, other in
                joinedBlocked.append(other != nil)
                lookedUpBlocked.append(try index.lookup(n).blocked != nil)
            }
            #expect(joinedBlocked == lookedUpBlocked, "round \(round)")
            #expect(try stored(blocked) == reference(index, identified: false), "round \(round)")
            #expect(try stored(identified) == reference(index, identified: true), "round \(round)")
        }
    }

    /// The stored walk as text lines.
    func stored(_ stream: DeviceEntryStream) throws -> [String] {
        var lines: [String] = []
        try stream.forEachStored(number: { n, ref in lines.append("\(n) \(ref)") },
                                 range: { r, ref in lines.append("\(r.first)-\(r.last) \(ref)") })
        return lines
    }

    /// What the exports wrote before the walk moved into the reader: the exact numbers, and
    /// before each one the ranges starting below it.
    func reference(_ index: CallDirIndex, identified: Bool) throws -> [String] {
        let ranges = identified ? index.identifiedRanges : index.blockedRanges
        var cursor = NumberCursor(identified ? index.identified : index.blocked, path: index.path)
        var lines: [String] = []
        var r = 0
        while let n = try cursor.next() {
            while r < ranges.count, ranges[r].first < n {
                lines.append("\(ranges[r].first)-\(ranges[r].last) \(ranges[r].label)")
                r += 1
            }
            lines.append("\(n) \(cursor.labelID)")
        }
        lines += ranges[r...].map { "\($0.first)-\($0.last) \($0.label)" }
        return lines
    }
}
