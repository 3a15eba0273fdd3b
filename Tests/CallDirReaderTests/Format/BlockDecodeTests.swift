import Testing
@testable import CallDirReader
@testable import CallDirWriter
import TestSupport

/// `decode(into:)` (sequential passes) must agree with `forEach` (the reference decoder) on
/// every block shape, and stop short on damage instead of reading outside the block.
@Suite("Elias-Fano whole-block decoding")
struct BlockDecodeTests {
    static func decodeBoth(_ bytes: [UInt8], count: Int, base: Int64) -> (decoded: [Int64], reference: [Int64]) {
        let padded = bytes + [UInt8](repeating: 0, count: 8)  // the section's padding
        return padded.withUnsafeBytes { raw in
            let block = UnsafeRawBufferPointer(rebasing: raw[0..<bytes.count])
            guard let reader = EliasFanoBlockReader(bytes: block, count: count, base: base, identified: false) else { return ([], []) }
            var reference: [Int64] = []
            reader.forEach { reference.append($0); return true }
            let out = UnsafeMutablePointer<Int64>.allocate(capacity: count)
            defer { out.deallocate() }
            let n = reader.decode(into: out)
            return (Array(UnsafeBufferPointer(start: out, count: n)), reference)
        }
    }

    @Test("random blocks of every size and spread decode exactly as forEach does", arguments: [1, 2, 3, 64, 65, 200, 256])
    func agrees(count: Int) {
        var rng = SeededGenerator(seed: UInt64(count))
        for spread in [Int64(1), 2, 3, 100, 1 << 20, 1 << 40, Int64.max / 512] {
            var values = Set<Int64>()
            let base = Int64.random(in: 1...1_000_000_000, using: &rng)
            values.insert(base)
            while values.count < count { values.insert(base + Int64.random(in: 1...(spread * Int64(count)), using: &rng)) }
            let sorted = values.sorted()
            var bytes: [UInt8] = []
            sorted.withUnsafeBufferPointer { EliasFanoBlock.encode($0, labels: nil, into: &bytes) }
            let (decoded, reference) = Self.decodeBoth(bytes, count: count, base: sorted[0])
            #expect(decoded == sorted && reference == sorted, "count \(count), spread \(spread)")
        }
    }

    @Test("damaged high bits: both decoders stop at the same short count, neither crashes")
    func damaged() {
        let values = (0..<256).map { Int64(18_000_000_000) + Int64($0) * 37 }
        var bytes: [UInt8] = []
        values.withUnsafeBufferPointer { EliasFanoBlock.encode($0, labels: nil, into: &bytes) }
        var rng = SeededGenerator(seed: 9)
        for _ in 0..<200 {
            var damaged = bytes
            let at = Int.random(in: 2..<damaged.count, using: &rng)
            damaged[at] = UInt8.random(in: 0...255, using: &rng)
            let (decoded, reference) = Self.decodeBoth(damaged, count: 256, base: values[0])
            #expect(decoded == reference, "byte \(at)")
        }
    }
}
