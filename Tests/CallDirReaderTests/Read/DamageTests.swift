import Foundation
import Testing
@testable import CallDirReader
import TestSupport

@Suite("Damaged indexes")
struct DamageTests {
    /// A small index with every section in use: blocks of numbers, labels and ranges.
    func makeIndex(_ folder: TempFolder) throws -> (path: String, probes: [Int64]) {
        let blocked = (0..<600).map { 14_085_550_000 + Int64($0) * 7 }
        let block = blocked.map(String.init) + ["1900555####"]
        let identified = (0..<300).map { 18_005_550_000 + Int64($0) * 13 }
        // Shared labels (repeated) and stream labels (one per entry), mixed within blocks.
        let identify = identified.map { "\($0),\($0 % 3 == 0 ? "Business \($0)" : "Caller \($0 % 5)")" }
            + ["3316200####,Range"]
        let path = folder.file("small.calldir")
        try buildIndex(block: block, identify: identify, output: path)
        let probes = blocked.enumerated().filter { $0.offset % 40 == 0 }.map(\.element)
            + identified.enumerated().filter { $0.offset % 30 == 0 }.map(\.element)
            + [14_085_550_001, 18_005_550_001, 19_005_551_234, 33_162_001_234, 12_125_550_000]
        return (path, probes)
    }

    func answers(_ index: CallDirIndex, _ probes: [Int64]) throws -> [LookupResult] {
        try probes.map { try index.lookup($0) }
    }

    func entries(_ index: CallDirIndex) throws -> (blocked: [Int64], identified: [String]) {
        var blocked: [Int64] = []
        var identified: [String] = []
        try index.forEachBlockedNumber { blocked.append($0) }
        try index.forEachIdentifiedNumber { identified.append("\($0) \($1)") }
        return (blocked, identified)
    }

    @Test("flipping any byte is caught by verify; lookups and iteration answer right or report damage")
    func flipEveryByte() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let (path, probes) = try makeIndex(folder)
        let original = fileBytes(path)
        let expected = try answers(CallDirIndex(path: path), probes)
        let expectedEntries = try entries(CallDirIndex(path: path))
        let damaged = folder.file("damaged.calldir")
        var missedByVerify: [Int] = []
        for offset in 0..<original.count {
            var bytes = original
            bytes[offset] ^= 0x5A
            _ = FileManager.default.createFile(atPath: damaged, contents: Data(bytes))
            if (try? CallDirIndex(path: damaged, verify: true)) != nil { missedByVerify.append(offset) }
            // Lazy open (what one-shot lookups use): same answers, or an error. Never a crash.
            if let index = try? CallDirIndex(path: damaged), let got = try? answers(index, probes) {
                #expect(got == expected, "byte \(offset): lookup answered differently without reporting damage")
            }
            if let index = try? CallDirIndex(path: damaged), let got = try? index.lookup(probes) {
                #expect(got == expected, "byte \(offset): batch lookup answered differently without reporting damage")
            }
            // Iteration: the whole sequence, unaltered, or an error; never a short or changed one.
            if let index = try? CallDirIndex(path: damaged), let got = try? entries(index) {
                #expect(got == expectedEntries, "byte \(offset): iteration changed without reporting damage")
            }
        }
        #expect(missedByVerify.isEmpty, "verify missed flips at \(missedByVerify)")
    }

    @Test("truncating at every length is detected")
    func truncateEveryLength() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let (path, _) = try makeIndex(folder)
        let original = fileBytes(path)
        let cut = folder.file("cut.calldir")
        for length in 0..<original.count {
            _ = FileManager.default.createFile(atPath: cut, contents: Data(original[0..<length]))
            #expect(throws: CallDirError.self, "length \(length)") { try CallDirIndex(path: cut) }
        }
    }

    @Test("another major version is refused with a clear message")
    func unknownVersion() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let (path, _) = try makeIndex(folder)
        var bytes = fileBytes(path)
        for (version, words) in [(UInt8(4), "version 4"), (1, "format 1.0, written by calldir 0.1: recompile")] {
            bytes[8] = version
            _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
            do {
                _ = try CallDirIndex(path: path)
                Issue.record("version \(version) was accepted")
            } catch let error as CallDirError {
                #expect(error.code == .unsupportedVersion)
                #expect(error.message.contains(words), "\(error.message)")
            }
        }
    }

    @Test("a missing file and a non-index file give clear errors")
    func notAnIndex() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        #expect(throws: CallDirError.self) { try CallDirIndex(path: folder.file("nope.calldir")) }
        let text = folder.write("text.txt", String(repeating: "hello\n", count: 40))
        do {
            _ = try CallDirIndex(path: text)
        } catch let error as CallDirError {
            #expect(error.code == .corruptIndex && error.message.contains("not a calldir index"))
        }
    }
}
