import Foundation
import Testing
@testable import CallDir
@testable import CallDirReader
import CompileSupport
import TestSupport

@Suite("Index round trip")
struct RoundTripTests {
    @Test("every member is found with its label, non-members are not", arguments: [0, 1, 2, 1_000, 100_000])
    func roundTrip(count: Int) throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let entries = sampleEntries(count, seed: UInt64(count) + 7)
        let blocked = folder.write("blocked.txt", entries.map { "\($0.0)\n" }.joined())
        let identified = folder.write("identified.csv", entries.map { "\($0.0),\($0.1)\n" }.joined())
        let summary = try compile(block: [blocked], identify: [identified], output: folder.file("index.calldir")) {
            $0.allowEmpty = count == 0
        }
        #expect(summary.blockedNumbers == count)
        #expect(summary.identifiedNumbers == count)
        #expect(summary.numbersInBoth == count)
        let index = try CallDirIndex(path: folder.file("index.calldir"), verify: true)
        for (number, label) in entries {
            let result = try index.lookup(number)
            #expect(result.blocked == .exact && result.label == label && result.labelMatch == .exact,
                    "\(number) should be blocked and labelled \(label)")
        }
        let members = Set(entries.map(\.0))
        var rng = SeededGenerator(seed: 99)
        var absent = 0
        for _ in 0..<20_000 {
            let probe = randomNANP(using: &rng)
            guard !members.contains(probe) else { continue }
            let result = try index.lookup(probe)
            #expect(!result.isListed, "\(probe) is not in the list")
            absent += 1
        }
        #expect(absent > 19_000)
        // Neighbours of members are the hardest misses for Elias-Fano buckets.
        for (number, _) in entries.prefix(2_000) where !members.contains(number + 1) {
            #expect(try index.lookup(number + 1).isListed == false)
        }
    }

    @Test("extreme spreads: consecutive runs, 15-digit values, huge gaps")
    func extremes() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        var numbers: [Int64] = Array(4_412_345_000...4_412_345_600)  // dense: L = 0
        numbers += [5_000_000_000, 77_777_777_777_777, 99_999_999_999_999, 999_999_999_999_998, 999_999_999_999_999]
        let path = folder.write("b.txt", numbers.map { "\($0)\n" }.joined())
        // Storage extremes, not numbering plans (+999 is no country's): --lenient, and
        // --international (the 601 ten-digit numbers would otherwise look like a national list).
        try compile(block: [path], output: folder.file("i.calldir")) {
            $0.lenient = true
            $0.international = true
        }
        let index = try CallDirIndex(path: folder.file("i.calldir"))
        for n in numbers { #expect(try index.lookup(n).blocked == .exact, "\(n)") }
        for n in [Int64(4_412_344_999), 4_412_345_601, 4_999_999_999, 99_999_999_999_998, 999_999_999_999_997] {
            #expect(try index.lookup(n).blocked == nil, "\(n)")
        }
        var decoded: [Int64] = []
        try index.forEachBlockedNumber { decoded.append($0) }
        #expect(decoded == numbers)
    }

    @Test("an empty list compiles to a valid, empty index with allowEmpty, else fails")
    func emptyList() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let path = folder.write("empty.txt", "# nothing yet\n\n")
        #expect(throws: CallDirError.self) { try compile(block: [path], output: folder.file("e.calldir")) }
        #expect(!FileManager.default.fileExists(atPath: folder.file("e.calldir")))
        let summary = try compile(block: [path], output: folder.file("e.calldir")) { $0.allowEmpty = true }
        #expect(summary.entries == 0)
        let index = try CallDirIndex(path: folder.file("e.calldir"), verify: true)
        #expect(index.blockedCount == 0 && index.identifiedCount == 0)
        #expect(try index.lookup(18_005_555_555).isListed == false)
    }

    @Test("the same input gives a byte-identical file")
    func deterministic() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let entries = sampleEntries(5_000, seed: 3)
        let identified = folder.write("id.csv", entries.map { "\($0.0),\($0.1)\n" }.joined())
        try compile(identify: [identified], output: folder.file("a.calldir"))
        try compile(identify: [identified], output: folder.file("b.calldir"))
        #expect(fileBytes(folder.file("a.calldir")) == fileBytes(folder.file("b.calldir")))
    }

    @Test("10 million-scale density stays compact: 100k numbers spread over 11 digits")
    func compactness() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let path = folder.write("b.txt", sampleEntries(100_000, seed: 11).map { "\($0.0)\n" }.joined())
        let summary = try compile(block: [path], output: folder.file("c.calldir"))
        // Gap ~64,000 -> about 2 + 16 bits = 2.3 bytes; raw Int64 would be 8.
        #expect(summary.bytesPerEntry < 2.6, "got \(summary.bytesPerEntry) bytes/entry")
    }
}
