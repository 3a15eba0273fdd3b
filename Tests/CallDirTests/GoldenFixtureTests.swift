import Foundation
import Testing
@testable import CallDir
@testable import CallDirReader

/// The committed fixture is FORMAT.md's example: a layout change must update both.
@Suite("Golden fixture")
struct GoldenFixtureTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    @Test("compiling the fixture lists reproduces tiny.calldir byte for byte")
    func byteExact() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let output = folder.file("tiny.calldir")
        try compile(block: [Self.fixtures.appendingPathComponent("tiny-blocked.txt").path],
                    identify: [Self.fixtures.appendingPathComponent("tiny-identified.txt").path], output: output)
        let golden = fileBytes(Self.fixtures.appendingPathComponent("tiny.calldir").path)
        #expect(!golden.isEmpty)
        #expect(fileBytes(output) == golden, "the index layout changed: bump the version, FORMAT.md and the fixture together")
    }

    @Test("the fixture reads as FORMAT.md describes it")
    func documentedFields() throws {
        let path = Self.fixtures.appendingPathComponent("tiny.calldir").path
        let bytes = fileBytes(path)
        #expect(Array(bytes[0..<8]) == [0x43, 0x41, 0x4C, 0x4C, 0x44, 0x49, 0x52, 0x1A])
        #expect(Array(bytes[8..<10]) == [0x02, 0x00])  // format 2.0
        #expect(Array(bytes[0x40..<0x4A]) == [0x1C, 0x00, 0x01, 0x00, 0x00, 0x00, 0x48, 0x54, 0xDE, 0x09])
        // Identified block: L 28, W 0, two stream entries from stream label 0; the map 0b011.
        #expect(Array(bytes[0x80..<0x88]) == [0x1C, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00])
        #expect(bytes[0x90] == 0x03)
        // Symbols "Spam ris", "Telemark", "eter", "k"; the shared store's one label is codes 0, 3.
        #expect(Array(bytes[0x140..<0x148]) == [0x04, 0x00, 0x00, 0x00, 0x08, 0x08, 0x04, 0x01])
        #expect(Array(bytes[0x190..<0x193]) == [0x02, 0x00, 0x03])
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
}
