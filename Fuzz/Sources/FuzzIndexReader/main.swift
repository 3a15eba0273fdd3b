@testable import CallDirReader
import FuzzSupport

// The index reader on hostile bytes: open lazily, single and batch lookups, iteration of both
// kinds and the range lists, labels, then a full verify. The input is read in place (no copy,
// no file), so AddressSanitizer sees any read past its end. Each input is read twice: as it
// is, and resealed (every checksum recomputed by the test suite's Forger), so that mutations
// reach the range checks behind the checksums, as a forger's file would.
let probes: [Int64] = [0, 1, -1, 18005555555, 18775555555, 19005550123, 33612345678, 999_999_999_999_999, Int64.max]

func exercise(_ bytes: UnsafeRawBufferPointer) {
    let file = MappedFile(borrowing: bytes, path: "fuzz-input")
    guard let index = try? CallDirIndex(file: file) else { return }
    var numbers = probes
    _ = try? index.forEachBlockedNumber { if numbers.count < 4096 { numbers += [$0, $0 + 1] } }
    _ = try? index.forEachIdentifiedNumber { n, _ in if numbers.count < 8192 { numbers += [n, n - 1] } }
    for range in index.blockedRangeList.prefix(64) { numbers += [range.first, range.last, range.last &+ 1] }
    for i in 0..<min(64, index.identifiedRanges.count) {
        let range = index.identifiedRanges.range(i)
        numbers += [range.first &- 1, range.last]
    }
    let single = numbers.map { try? index.lookup($0) }
    if let batch = try? index.lookup(numbers) {
        precondition(single.allSatisfy { $0 != nil }, "batch lookup succeeded where a single one failed")
        for (a, b) in zip(single, batch) { precondition(a == b, "batch and single lookup disagree: \(a!) vs \(b)") }
    }
    _ = try? index.distinctLabels()
    _ = try? CallDirIndex(file: file, verify: true)
}

runFuzzerResealed(exercise)
