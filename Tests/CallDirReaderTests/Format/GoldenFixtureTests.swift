import Foundation
import Testing
@testable import CallDirReader
import TestSupport

/// The committed fixture is FORMAT.md's example: a layout change must update both. (That a
/// compile of its lists gives these bytes: CallDirTests, `BuiltIndexTests`.)
@Suite("Golden fixture")
struct GoldenFixtureTests {
    static let fixtures = goldenFixtures

    @Test("the fixture reads as FORMAT.md describes it")
    func documentedFields() throws {
        let path = Self.fixtures.appendingPathComponent("tiny.calldir").path
        let bytes = fileBytes(path)
        #expect(Array(bytes[0..<8]) == [0x43, 0x41, 0x4C, 0x4C, 0x44, 0x49, 0x52, 0x1A])
        #expect(Array(bytes[8..<12]) == [0x03, 0x00, 0x00, 0x00])  // format 3.0
        #expect(Array(bytes[0x40..<0x4A]) == [0x1C, 0x00, 0x01, 0x00, 0x00, 0x00, 0x48, 0x54, 0xDE, 0x09])
        // Identified block: L 28, W 0, two stream entries from stream label 0; the map 0b011.
        #expect(Array(bytes[0x80..<0x88]) == [0x1C, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00])
        #expect(bytes[0x90] == 0x03)
        // The blocked directory's page table: its header, 64 per page, one page of entry 0.
        #expect(Array(bytes[0x100..<0x110]) == Array(bytes[0xC0..<0xCC]) + [0x40, 0x00, 0x00, 0x00])
        #expect(Array(bytes[0x110..<0x11C]) == Array(bytes[0xD0..<0xDC]))
        #expect(bytes[0x11C..<0x120].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) } == Checksum.crc32(Array(bytes[0xD0..<0xE0])))
        // Symbols "Spam ris", "Telemark", "eter", "k"; the shared store's one label is codes 0, 3.
        #expect(Array(bytes[0x1C0..<0x1C8]) == [0x04, 0x00, 0x00, 0x00, 0x08, 0x08, 0x04, 0x01])
        #expect(Array(bytes[0x210..<0x213]) == [0x02, 0x00, 0x03])  // one label: no step table
        #expect(Array(bytes[0x208..<0x210]) == [0x20, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00])  // 32 per block, 4 per step
        #expect(Array(bytes[(bytes.count - 8)...]) == Array("CDIRTAIL".utf8))
        let index = try CallDirIndex(path: path, verify: true)
        #expect(try index.lookup(18_775_555_555) == {
            var r = LookupResult(number: 18_775_555_555)
            r.blocked = .exact
            r.label = "Telemarketer"
            r.labelMatch = .exact
            return r
        }())
        #expect(try index.lookup(18_885_555_555).label == "Spam risk")  // the shared label
        #expect(try index.lookup(18_005_555_556).label == "Spam risk")  // its first use, a stream label
        #expect(try index.lookup(33_162_001_234).blockedRange == NumberRange(first: 33_162_000_000, last: 33_162_009_999))
    }

    @Test("a format 2.0 file (no directory pages) still reads, its directories checked whole at open")
    func readsFormat20() throws {
        let old = try CallDirIndex(path: Self.fixtures.appendingPathComponent("tiny-2.0.calldir").path)
        let new = try CallDirIndex(path: Self.fixtures.appendingPathComponent("tiny-2.1.calldir").path)
        #expect(old.formatVersion == "2.0" && new.formatVersion == "2.1" && old.sections[.blockedDirectoryPages] == nil)
        #expect(old.blocked.pages.checked.contains(0) && old.identified.pages.checked.contains(0))  // at open
        #expect(!new.blocked.pages.checked.contains(0) && !new.identified.pages.checked.contains(0))  // not yet
        _ = try CallDirIndex(path: old.path, verify: true)
        var oldNumbers: [Int64] = [], newNumbers: [Int64] = []
        try old.forEachIdentifiedNumber { n, _ in oldNumbers.append(n) }
        try new.forEachIdentifiedNumber { n, _ in newNumbers.append(n) }
        #expect(oldNumbers == newNumbers && oldNumbers.count == 3)
        let probes: [Int64] = [18_005_555_555, 18_005_555_556, 18_775_555_555, 18_885_555_555, 33_162_001_234, 1, 19_995_555_555]
        #expect(try old.lookup(probes) == new.lookup(probes))
    }

    @Test("a format 2.1 file (label blocks without step tables) still reads and verifies, with 3.0's answers")
    func readsFormat21() throws {
        let old = try CallDirIndex(path: Self.fixtures.appendingPathComponent("tiny-2.1.calldir").path, verify: true)
        let new = try CallDirIndex(path: Self.fixtures.appendingPathComponent("tiny.calldir").path, verify: true)
        #expect(old.formatVersion == "2.1" && new.formatVersion == "3.0")
        #expect(old.labels.stream.labelsPerStep == 0 && new.labels.stream.labelsPerStep == 4)
        let probes: [Int64] = [18_005_555_555, 18_005_555_556, 18_775_555_555, 18_885_555_555, 33_162_001_234, 1, 19_995_555_555]
        #expect(try old.lookup(probes) == new.lookup(probes))
        #expect(try old.distinctLabels() == new.distinctLabels())
    }

    @Test("a format 2.1 index whose store claims a step table (or 3.0 one that has none) is refused at open")
    func stepSizeMustMatchVersion() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        for (name, value) in [("tiny-2.1.calldir", UInt64(4)), ("tiny.calldir", UInt64(0))] {
            var forger = Forger(bytes: fileBytes(Self.fixtures.appendingPathComponent(name).path))
            let store = try #require(forger.section(11))
            forger.write(store.offset + 12, 4, value)
            forger.reseal()
            let error = #expect(throws: CallDirError.self) { try CallDirIndex(path: folder.write(name, forger.bytes)) }
            #expect(error?.message.contains("stream-labels: unexpected step size \(value)") == true, "\(String(describing: error))")
        }
    }
}
