import Foundation
import Testing
@testable import CallDirReader
import TestSupport

@Suite("Batch lookups")
struct BatchLookupTests {
    /// Members, their neighbours, numbers below and above every entry, ranges and
    /// out-of-range values, shuffled so that groups mix blocks.
    static func probes(_ members: [Int64]) -> [Int64] {
        var rng = SeededGenerator(seed: 5)
        var probes = members.enumerated().filter { $0.offset % 3 == 0 }.map(\.element)
        probes += members.prefix(500).flatMap { [$0 - 1, $0 + 1] }
        probes += (0..<500).map { _ in randomNANP(using: &rng) }
        probes += [Int64.min, -1, 0, 1, 10_000_000_000, 19_999_999_999, 33_162_001_234, 44_000_000_000, Int64.max]
        probes.shuffle(using: &rng)
        return probes
    }

    @Test("batch answers equal one-by-one answers, for every group size", arguments: [0, 1, 300, 5_000])
    func sameAnswers(count: Int) throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let entries = sampleEntries(count, seed: UInt64(count) + 3)
        let blocked = entries.map { "\($0.0)" } + ["3316200####"]
        let identified = entries.enumerated().filter { $0.offset % 2 == 0 }.map { "\($0.element.0),\($0.element.1)" }
            + ["4400000####,Range"]
        let path = folder.file("index.calldir")
        try buildIndex(block: blocked, identify: identified, output: path)
        for verify in [false, true] {
            let index = try CallDirIndex(path: path, verify: verify)
            let probes = Self.probes(entries.map(\.0))
            let single = try probes.map { try index.lookup($0) }
            for size in [0, 1, CallDirIndex.groupSize - 1, CallDirIndex.groupSize, CallDirIndex.groupSize + 1, probes.count] {
                #expect(try index.lookup(Array(probes.prefix(size))) == Array(single.prefix(size)), "size \(size)")
            }
            #expect(single.filter { $0.blocked == .exact }.count >= entries.count / 3)
        }
    }

    @Test("a damaged block is reported by a batch lookup too")
    func damage() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let numbers = (0..<2_000).map { 14_085_550_000 + Int64($0) * 11 }
        let output = folder.file("i.calldir")
        try buildIndex(block: numbers.map(String.init), output: output)
        var bytes = fileBytes(output)
        bytes[0x40 + 100] ^= 0x01  // inside the first block of blocked numbers
        _ = FileManager.default.createFile(atPath: output, contents: Data(bytes))
        let index = try CallDirIndex(path: output)
        #expect(throws: CallDirError.self) { try index.lookup(Array(numbers.prefix(40))) }
    }
}
