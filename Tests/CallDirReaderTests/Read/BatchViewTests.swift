import Foundation
import Testing
@testable import CallDirReader
import TestSupport

/// `lookupViews`, the batch lookup that lends each label's bytes instead of a `String`: its
/// answers equal single lookups', on indexes with shared and stream labels, ranges, damage and
/// forged labels. (The JSON written from views: CallDirLookupTests, `LookupViewJSONTests`.)
@Suite("Batch lookup views")
struct BatchViewTests {
    static func views(_ index: CallDirIndex, _ numbers: [Int64]) throws -> [LookupResult] {
        var results: [LookupResult] = []
        try numbers.withUnsafeBufferPointer { numbers in
            try index.lookupViews(numbers) { results.append($0.result) }
        }
        return results
    }

    /// 3,000 rows with shared and stream labels, every fifth blocked, a blocked and a labelled
    /// range, and probes around them.
    static func mixedIndex(_ folder: TempFolder) throws -> (path: String, probes: [Int64]) {
        let rows = LabelStoreTests.rows(count: 3_000, seed: 11)
        let blocked = rows.enumerated().filter { $0.offset % 5 == 0 }.map { "\($0.element.0)" } + ["3316200####"]
        let identified = LabelStoreTests.lines(rows) + ["4400000####,Range \"quoted\" \\ ünï"]
        let path = folder.file("i.calldir")
        try buildIndex(block: blocked, identify: identified, output: path)
        return (path, BatchLookupTests.probes(rows.map(\.0)) + [44_000_001_234, 33_162_001_234])
    }

    @Test("views equal single lookups, verified or not")
    func sameAnswers() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let (path, probes) = try Self.mixedIndex(folder)
        for verify in [false, true] {
            let index = try CallDirIndex(path: path, verify: verify)
            #expect(index.metadata.sharedLabels >= 4 && index.metadata.streamLabels > 1_000)
            let single = try probes.map { try index.lookup($0) }
            #expect(try Self.views(index, probes) == single)
            #expect(single.contains { $0.labelMatch == .range && $0.label == "Range \"quoted\" \\ ünï" })
            #expect(single.contains { $0.blocked == .range } && single.contains { $0.blocked == .exact && $0.label != nil })
            #expect(Set(single.compactMap(\.label)).count > 500)
        }
    }

    @Test("a damaged label block: the batch gives every answer before it, then the single lookup's error")
    func damagedLabelBlock() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let (path, rows) = try LabelStoreTests.damagedStreamIndex(folder)  // labels 480...499 damaged
        let single = #expect(throws: CallDirError.self) { try CallDirIndex(path: path).lookup(rows[490].0) }
        let index = try CallDirIndex(path: path)
        var seen: [LookupResult] = []
        let batch = #expect(throws: CallDirError.self) {
            try rows.map(\.0).withUnsafeBufferPointer { try index.lookupViews($0) { seen.append($0.result) } }
        }
        #expect(batch != nil && batch?.code == single?.code && batch?.message == single?.message && batch?.offset == single?.offset)
        #expect(batch?.message.contains("stream-labels: label block 15 fails its checksum") == true)
        #expect(seen.map(\.label) == rows.prefix(480).map(\.1))
    }

    @Test("a forged label that is not UTF-8 is never handed out: single and batch lookups fail alike, naming the rule")
    func forgedUTF8() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let rows = (0..<300).map { (Int64(12_015_550_000) + Int64($0) * 7, "Büsiness \($0 % 40)") }
        let path = folder.file("i.calldir")
        try buildIndex(identify: LabelStoreTests.lines(rows), output: path)
        // Every symbol's first byte becomes 0xFF (never valid UTF-8); checksums resealed.
        var forger = Forger(bytes: fileBytes(path))
        let symbols = try #require(forger.section(UInt64(SectionKind.labelSymbols.rawValue)))
        let count = Int(try #require(forger.read(symbols.offset, 4)))
        var at = symbols.offset + 4 + count
        for i in 0..<count {
            forger.bytes[at] = 0xFF
            at += Int(forger.bytes[symbols.offset + 4 + i])
        }
        forger.reseal()
        _ = FileManager.default.createFile(atPath: path, contents: Data(forger.bytes))
        // Issue 39: the label block is checked whole when first read, as verify checks it.
        let index = try CallDirIndex(path: path)
        let single = #expect(throws: CallDirError.self) { try index.lookup(rows[0].0) }
        #expect(single?.message.contains("a label is invalid (label-invalid-utf8)") == true, "\(String(describing: single))")
        let batch = #expect(throws: CallDirError.self) { try Self.views(CallDirIndex(path: path), rows.map(\.0)) }
        #expect(batch?.message == single?.message)
        let verified = #expect(throws: CallDirError.self) { try CallDirIndex(path: path, verify: true) }
        #expect(verified?.message.contains("a label is invalid (label-invalid-utf8)") == true)  // verify meets a shared one first
    }

    @Test("the UTF-8 check agrees with the standard library's decoder")
    func utf8Check() {
        var rng = SeededGenerator(seed: 21)
        var cases: [[UInt8]] = [[], [0x41], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82],
                                Array("ünï✓😀 plain ascii text".utf8), Array("plain ascii text, longer than 8".utf8) + [0xFF]]
        let alphabet: [UInt8] = [0x41, 0x7F, 0x80, 0xBF, 0xC2, 0xC3, 0xE0, 0xE2, 0xED, 0xF0, 0xF4, 0xF5, 0xFF]
        for _ in 0..<5_000 {
            cases.append((0..<Int.random(in: 0...20, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
        }
        for bytes in cases {
            let valid = bytes.withUnsafeBytes { LabelRule.isValidUTF8($0) }
            // The decoder replaces each ill-formed sequence with U+FFFD (EF BF BD), so the bytes
            // come back unchanged exactly when they were UTF-8. (Not `String(validating:)`:
            // Swift 6's, it is not in the iOS SDKs scripts/ios-check compiles against.)
            #expect(valid == (Array(String(decoding: bytes, as: UTF8.self).utf8) == bytes), "\(bytes)")
        }
    }
}
