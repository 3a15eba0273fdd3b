import Foundation
import Testing
@testable import CallDirReader
@testable import CallDirWriter
import TestSupport

/// Format 2's labels: every entry answers its own label, whatever mix of shared and stream
/// labels the writer chose; the shared store stops at its limit; text of any UTF-8 survives
/// the symbol coding. (That row order does not change the bytes: CallDirTests, `BuiltIndexTests`.)
@Suite("Label stores (formats 2 and 3)")
struct LabelStoreTests {
    /// Rows with a realistic mix: a few frequent labels, many unique names, some non-ASCII.
    static func rows(count: Int, seed: UInt64) -> [(Int64, String)] {
        var rng = SeededGenerator(seed: seed)
        let frequent = ["Spam risk", "Telemarketer", "Débiteur", "保险推销"]
        let words = ["Acme", "Müller", "Smith", "Garcia", "Holdings", "& Sons", "GmbH", "Café", "Øresund", "Ltd"]
        var numbers = Set<Int64>()
        while numbers.count < count { numbers.insert(randomNANP(using: &rng)) }
        return numbers.sorted().map { n in
            if Int.random(in: 0..<3, using: &rng) == 0 { return (n, frequent.randomElement(using: &rng)!) }
            let name = (0..<Int.random(in: 1...4, using: &rng)).map { _ in words.randomElement(using: &rng)! }
            return (n, name.joined(separator: " ") + " \(Int.random(in: 0..<1_000_000, using: &rng))")
        }
    }

    /// 500 identification entries with their own (stream) labels, a byte of the last label
    /// block (labels 480...499) flipped, so its CRC fails.
    static func damagedStreamIndex(_ folder: TempFolder) throws -> (path: String, rows: [(Int64, String)]) {
        let rows = (0..<500).map { (Int64(12_015_550_000) + Int64($0) * 3, "Business \($0)") }
        let path = folder.file("i.calldir")
        try buildIndex(identify: Self.lines(rows), output: path)
        let store = try #require(Forger(bytes: fileBytes(path)).labelBlocks(11).last)
        var bytes = fileBytes(path)
        bytes[store.start + 5] ^= 0x20
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return (path, rows)
    }

    static func lines(_ rows: [(Int64, String)]) -> [String] { rows.map { "\($0.0),\($0.1)" } }

    @Test("every entry answers its label; lookups, batch lookups, iteration and verify agree", arguments: [1, 2, 3])
    func answers(seed: UInt64) throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let rows = Self.rows(count: 3_000, seed: seed)
        let path = folder.file("i.calldir")
        try buildIndex(identify: Self.lines(rows), output: path)
        let index = try CallDirIndex(path: path)
        #expect(index.metadata.sharedLabels >= 4 && index.metadata.streamLabels > 1_500)
        #expect(index.labelCount == index.metadata.sharedLabels + index.metadata.streamLabels)
        for (n, label) in rows { #expect(try index.lookup(n).label == label) }
        let batch = try index.lookup(rows.map(\.0)).map(\.label)
        #expect(batch == rows.map(\.1))
        var iterated: [(Int64, String)] = []
        try index.forEachIdentifiedNumber { iterated.append(($0, $1)) }
        #expect(iterated.map(\.0) == rows.map(\.0) && iterated.map(\.1) == rows.map(\.1))
        _ = try CallDirIndex(path: path, verify: true)
    }

    @Test("past 65,536 shared labels, repeated labels go to the stream store and still answer")
    func sharedLimit() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        // 70,000 labels, each used by two neighbouring numbers: the second use makes it shared.
        let distinct = 70_000
        let rows = (0..<(2 * distinct)).map { (Int64(12_015_550_000) + Int64($0), "Caller \($0 / 2)") }
        let path = folder.file("i.calldir")
        try buildIndex(identify: Self.lines(rows), output: path)
        let index = try CallDirIndex(path: path, verify: true)
        #expect(index.metadata.sharedLabels == LabelCollector.sharedLimit)
        #expect(index.metadata.streamLabels == distinct + (distinct - LabelCollector.sharedLimit))
        for (n, label) in rows where n % 97 == 0 || n > rows.last!.0 - 10 { #expect(try index.lookup(n).label == label) }
    }

    @Test("the symbol coding round-trips random UTF-8 text, escapes included")
    func codingRoundTrip() throws {
        var rng = SeededGenerator(seed: 11)
        let alphabet = Array("abcdefghij ABC-&'.Éé日本語🙂ß".unicodeScalars)
        let labels = (0..<2_000).map { _ in
            String(String.UnicodeScalarView((0..<Int.random(in: 1...40, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }))
        }
        var training = PackedLabels()
        for label in labels.prefix(200) { Array(label.utf8).withUnsafeBytes { training.append($0) } }
        let symbols = SymbolTableBuilder.build(sample: training)
        #expect(symbols.count > 20 && symbols.count <= 255)
        let coder = LabelCoder(symbols)
        var coded: [UInt8] = [], decoded: [UInt8] = []
        var codedBytes = 0, textBytes = 0
        for label in labels + ["\u{7F}x", String(repeating: "z", count: 255)] {
            coded.removeAll()
            Array(label.utf8).withUnsafeBytes { coder.encode($0, into: &coded) }
            #expect(coded.withUnsafeBytes { symbols.decode($0, into: &decoded) })
            #expect(decoded == Array(label.utf8))
            codedBytes += coded.count
            textBytes += label.utf8.count
        }
        #expect(codedBytes < textBytes, "coding should compress text like its training sample")
        // Codes the table does not have, a dangling escape, and text past 255 bytes are refused.
        #expect(![UInt8(254)].withUnsafeBytes { symbols.decode($0, into: &decoded) } || symbols.count == 255)
        #expect(![UInt8(255)].withUnsafeBytes { symbols.decode($0, into: &decoded) })
        #expect(!Array(repeating: [UInt8(255), 0x41], count: 256).flatMap { $0 }.withUnsafeBytes { symbols.decode($0, into: &decoded) })
    }

    @Test("a damaged label block fails the lookups that need it, not the others; verify names it")
    func damagedLabelBlock() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let (path, rows) = try Self.damagedStreamIndex(folder)
        let index = try CallDirIndex(path: path)  // opening does not read label blocks
        #expect(try index.lookup(rows[10].0).label == rows[10].1)
        let error = #expect(throws: CallDirError.self) { try index.lookup(rows[490].0) }
        #expect(error?.message.contains("stream-labels: label block 15 fails its checksum") == true, "\(String(describing: error))")
        let verify = #expect(throws: CallDirError.self) { try CallDirIndex(path: path, verify: true) }
        #expect(verify?.message.contains("stream-labels") == true, "\(String(describing: verify))")
    }

    /// Offsets of labels 4, 8, ... in a label block, found by walking its LEB128 lengths from
    /// the end of a step table of `tableSize` bytes (independently of the reader's code).
    static func walkedSteps(_ block: ArraySlice<UInt8>, tableSize: Int) -> (steps: [Int], twoByteLengths: Int) {
        var steps: [Int] = []
        var at = tableSize, n = 0, long = 0
        while at < block.count {
            if n > 0, n % 4 == 0 { steps.append(at) }
            var length = Int(block[block.startIndex + at] & 0x7F)
            if block[block.startIndex + at] & 0x80 != 0 {
                at += 1
                length |= Int(block[block.startIndex + at]) << 7
                long += 1
            }
            at += 1 + length
            n += 1
        }
        return (steps, long)
    }

    @Test("format 3: every label block starts with a step table naming where labels 4, 8, ... start")
    func stepTables() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        // 70 stream labels (blocks of 32, 32 and 6), lengths varying; every 7th is 240 bytes of
        // seeded random printable ASCII: ten such labels are more than the 255 symbols can
        // cover, so some code to over 127 bytes and their lengths take two bytes.
        var rng = SeededGenerator(seed: 5)
        let rows = (0..<70).map { i in
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!$%&()*+-./:;<=>?@[]^_{|}~".utf8)
            let scattered = String(decoding: (0..<240).map { _ in alphabet.randomElement(using: &rng)! }, as: UTF8.self)
            return (Int64(12_015_550_000) + Int64(i) * 3, i % 7 == 0 ? scattered : "Business \(String(repeating: "x", count: i % 9)) \(i)")
        }
        let path = folder.file("i.calldir")
        try buildIndex(identify: Self.lines(rows), output: path)
        let bytes = fileBytes(path)
        let blocks = Forger(bytes: bytes).labelBlocks(11)
        #expect(blocks.count == 3)
        var twoByteLengths = 0
        for (b, labels) in zip(blocks, [32, 32, 6]) {
            let tableSize = 2 * ((labels + 3) / 4 - 1)
            let block = bytes[b.start..<b.end]
            let table = (0..<(tableSize / 2)).map { Int(block[b.start + 2 * $0]) | Int(block[b.start + 2 * $0 + 1]) << 8 }
            let walked = Self.walkedSteps(block, tableSize: tableSize)
            #expect(table == walked.steps && table.count == (labels + 3) / 4 - 1)
            twoByteLengths += walked.twoByteLengths
        }
        #expect(twoByteLengths > 0)
        let index = try CallDirIndex(path: path, verify: true)
        for (n, label) in rows { #expect(try index.lookup(n).label == label) }
    }

    @Test("a forged step table entry with valid checksums never traps: lookups answer or throw, verify names it")
    func forgedStepTable() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let rows = (0..<40).map { (Int64(12_015_550_000) + Int64($0) * 3, "Business \($0)") }
        let path = folder.file("i.calldir")
        try buildIndex(identify: Self.lines(rows), output: path)
        let original = Forger(bytes: fileBytes(path))
        let block = try #require(original.labelBlocks(11).first)
        for entry in 0..<7 {
            let value = try #require(original.read(block.start + 2 * entry, 2))
            for forged in Forger.forgeries(of: value, width: 2) + [0, 13, 14, UInt64(block.end - block.start)] where forged != value {
                var forger = original
                forger.write(block.start + 2 * entry, 2, forged)
                forger.reseal()
                let file = folder.write("forged.calldir", forger.bytes)
                let index = try CallDirIndex(path: file)
                for (n, _) in rows.prefix(32) {
                    do { _ = try index.lookup(n) } catch is CallDirError {}  // an answer or an error, never a trap
                }
                let verify = #expect(throws: CallDirError.self, "entry \(entry) = \(forged)") { try CallDirIndex(path: file, verify: true) }
                #expect(verify?.message.contains("step table") == true, "\(String(describing: verify))")
            }
        }
    }

    @Test("the label rule's 8-bytes-at-a-time ASCII check agrees with a byte-by-byte one")
    func asciiRule() {
        var rng = SeededGenerator(seed: 12)
        let edges: [UInt8] = [0x00, 0x09, 0x1F, 0x20, 0x21, 0x41, 0x7E, 0x7F]
        for _ in 0..<5_000 {
            let count = Int.random(in: 1...40, using: &rng)
            var bytes = (0..<count).map { _ in Bool.random(using: &rng) ? edges.randomElement(using: &rng)! : UInt8.random(in: 0x20...0x7E, using: &rng) }
            bytes[0] = 0x41  // not blank
            let control = bytes.contains { $0 < 0x20 || $0 == 0x7F }
            let problem = bytes.withUnsafeBytes { LabelRule.problem($0) }
            #expect(problem == (control ? .labelControlCharacter : nil), "\(bytes)")
        }
    }
}
