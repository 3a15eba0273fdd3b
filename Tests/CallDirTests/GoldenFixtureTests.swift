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
        #expect(Array(bytes[0x40..<0x4A]) == [0x1C, 0x00, 0x01, 0x00, 0x00, 0x00, 0x48, 0x54, 0xDE, 0x09])
        #expect(Array(bytes[(bytes.count - 8)...]) == Array("CDIRTAIL".utf8))
        let index = try CallDirIndex(path: path, verify: true)
        #expect(try index.lookup(18_775_555_555) == {
            var r = LookupResult(number: 18_775_555_555)
            r.blocked = .exact
            r.label = "Telemarketer"
            r.labelMatch = .exact
            return r
        }())
        #expect(try index.lookup(33_162_001_234).blockedRange == NumberRange(first: 33_162_000_000, last: 33_162_009_999))
    }
}
