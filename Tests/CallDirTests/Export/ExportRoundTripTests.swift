import Foundation
import Testing
@testable import CallDir
@testable import CallDirReader
import CompileSupport
import TestSupport

/// compile -> export -> compile gives the same bytes (text, CSV, Saracroche --list, Begone),
/// or the same answers (vCard, which has no ranges).
@Suite("Export round trips")
struct ExportRoundTripTests {
    /// Random lists: exact numbers (NANP and European), `#` patterns and FIRST-LAST ranges that
    /// overlap and touch, labels from a pool, compiled with --sort --dedupe (so label ids
    /// follow the sort's order, not the rows').
    static func randomLists(seed: UInt64, in folder: TempFolder) -> (block: String, identify: String) {
        var rng = SeededGenerator(seed: seed)
        let labels = ["Spam", "Télémarketing", "Dentist, Dr. \"Who\"", " Edge spaces ", "Bank; Hotline", "A&B <C>",
                      "Back\\slash", "Survey"]
        func number() -> Int64 {
            Bool.random(using: &rng) ? randomNANP(using: &rng)
                : [33_100_000_000, 41_210_000_000, 4_930_000_000].randomElement(using: &rng)! + Int64.random(in: 0..<2_000_000, using: &rng)
        }
        func range() -> String {
            let base = number() / 10_000 * 10_000
            switch Int.random(in: 0..<3, using: &rng) {
            case 0:
                let wildcards = Int.random(in: 2...3, using: &rng)
                return String(String(base).dropLast(wildcards)) + String(repeating: "#", count: wildcards)
            case 1: return "\(base)-\(base + 100 * Int64.random(in: 1...40, using: &rng) - 1)"
            default: return "\(base + 1_000)-\(base + 1_999)"  // touches or overlaps its neighbours
            }
        }
        var block: [String] = (0..<400).map { _ in String(number()) } + (0..<40).map { _ in range() }
        var identify: [String] = (0..<400).map { _ in "\(number()),\(labels.randomElement(using: &rng)!)" }
        identify += (0..<30).map { _ in "\(range()),\(labels.randomElement(using: &rng)!)" }
        block.shuffle(using: &rng)
        identify.shuffle(using: &rng)
        let quoted = identify.map { row -> String in
            let comma = row.firstIndex(of: ",")!
            return row[..<comma] + "," + Escaping.csvField(String(row[row.index(after: comma)...]))
        }
        return (folder.write("block.txt", block.joined(separator: "\n") + "\n"),
                folder.write("identify.csv", "number,label\n" + quoted.joined(separator: "\n") + "\n"))
    }

    /// Compiles, failing the test with the diagnostics when the list has problems.
    func compileOriginal(block: [String] = [], identify: [String], output: String) throws {
        var options = CompileOptions(output: output)
        options.blockSources = block.map { .file($0) }
        options.identifySources = identify.map { .file($0) }
        options.sort = true
        options.dedupe = true
        var diagnostics: [Diagnostic] = []
        do { try compile(options, diagnostics: &diagnostics) } catch {
            Issue.record("\(error): \(diagnostics.map(\.description))")
            throw error
        }
    }

    /// Whether two index files are byte-identical; when not, records what differs (not the bytes).
    func expectSame(_ path: String, as original: String, _ what: String) throws {
        guard fileBytes(path) != fileBytes(original) else { return }
        let a = try CallDirIndex(path: original), b = try CallDirIndex(path: path)
        var blockedA: [Int64] = [], blockedB: [Int64] = []
        try a.forEachBlockedNumber { blockedA.append($0) }
        try b.forEachBlockedNumber { blockedB.append($0) }
        var identifiedA: [String] = [], identifiedB: [String] = []
        try a.forEachIdentifiedNumber { identifiedA.append("\($0) \($1)") }
        try b.forEachIdentifiedNumber { identifiedB.append("\($0) \($1)") }
        Issue.record("""
            \(what) differs from the original: labels \((try? a.distinctLabels()) ?? []) vs \((try? b.distinctLabels()) ?? []); \
            blocked equal \(blockedA == blockedB), identified equal \(identifiedA == identifiedB), \
            blocked ranges \(a.blockedRangeList == b.blockedRangeList), \
            identified ranges \((try a.checkedIdentifiedRanges()).map { "\($0.range.first)-\($0.range.last) \($0.label)" } == (try b.checkedIdentifiedRanges()).map { "\($0.range.first)-\($0.range.last) \($0.label)" }), \
            metadata \(a.metadata) vs \(b.metadata)
            """)
    }

    func export(_ index: String, _ format: ExportFormat, kind: ExportKind? = nil, to path: String,
                configure: (inout ExportOptions) -> Void = { _ in }) throws -> ExportSummary {
        var options = ExportOptions(format: format)
        options.kind = kind
        configure(&options)
        return try Exporter(index: CallDirIndex(path: index), options: options).run(to: path)
    }

    @Test("text + csv, Saracroche --list and Begone recompile byte for byte", arguments: [1, 2, 3, 4] as [UInt64])
    func randomIndexes(seed: UInt64) throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let lists = Self.randomLists(seed: seed, in: folder)
        let original = folder.file("original.calldir")
        try compileOriginal(block: [lists.block], identify: [lists.identify], output: original)
        let index = try CallDirIndex(path: original)
        let distinctLabels = try index.distinctLabels().count
        #expect(index.blockedRangeCount > 5 && index.identifiedRangeCount > 5 && distinctLabels == 8)

        _ = try export(original, .text, kind: .block, to: folder.file("b.txt"))
        _ = try export(original, .csv, kind: .identify, to: folder.file("i.csv"))
        try compile(block: [folder.file("b.txt")], identify: [folder.file("i.csv")], output: folder.file("text.calldir"))
        try expectSame(folder.file("text.calldir"), as: original, "text + csv")

        _ = try export(original, .saracroche, to: folder.file("list.json"))
        var options = CompileOptions(output: folder.file("list.calldir"))
        options.blockSources = [.list(folder.file("list.json"))]
        options.identifySources = [.list(folder.file("list.json"))]
        var diagnostics: [Diagnostic] = []
        try compile(options, diagnostics: &diagnostics)
        try expectSame(folder.file("list.calldir"), as: original, "saracroche --list")

        _ = try export(original, .begone, kind: .block, to: folder.file("b.plist"))
        _ = try export(original, .begone, kind: .identify, to: folder.file("i.plist"))
        try compile(block: [folder.file("b.plist")], identify: [folder.file("i.plist")], output: folder.file("plist.calldir"))
        try expectSame(folder.file("plist.calldir"), as: original, "begone")
    }

    @Test("vCard: one card per label; recompiled with --sort it answers like the original, ranges expanded")
    func vcard() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let lists = Self.randomLists(seed: 9, in: folder)
        let original = folder.file("original.calldir")
        try compileOriginal(identify: [lists.identify], output: original)
        var exporter = Exporter(index: try CallDirIndex(path: original), options: ExportOptions(format: .vcard))
        exporter.vcardBatch = 5_000  // several passes, and labels larger than a batch streamed alone
        let summary = try exporter.run(to: folder.file("cards.vcf"))
        let text = try String(contentsOfFile: folder.file("cards.vcf"), encoding: .utf8)
        #expect(summary.records == 8 && text.components(separatedBy: "BEGIN:VCARD\r\n").count == 9)
        #expect(text.contains("FN:Bank\\; Hotline\r\n") && text.contains("FN:Dentist\\, Dr. \"Who\"\r\n"))
        try compile(identify: [folder.file("cards.vcf")], output: folder.file("cards.calldir")) { $0.sort = true }
        var expected: [String] = []
        try EntryWalk(index: CallDirIndex(path: original)).identifiedExpanded { expected.append("\($0) \($1)") }
        var got: [String] = []
        try CallDirIndex(path: folder.file("cards.calldir")).forEachIdentifiedNumber { got.append("\($0) \($1)") }
        #expect(got.count == expected.count && got == expected)
    }

    @Test("ranges whose ends are not valid numbers are split into valid pieces")
    func rangePieces() throws {
        var pieces: [String] = []
        let text = RangeText(spans: true)
        try text.pieces(NumberRange(first: 18_000_000_000, last: 18_019_999_999)) { pieces.append($0) }
        #expect(pieces == ["1800#######", "1801#######"])  // 18000000000-18019999999 is not a valid range
        pieces = []
        try text.pieces(NumberRange(first: 4_121_560_123, last: 4_121_560_456)) { pieces.append($0) }
        #expect(pieces == ["4121560123-4121560456"])
        pieces = []
        try RangeText(spans: false).pieces(NumberRange(first: 4_121_560_098, last: 4_121_560_201)) { pieces.append($0) }
        #expect(pieces == ["4121560098", "4121560099", "41215601##", "4121560200", "4121560201"])
    }

    @Test("a label no entry uses is not stored, so even that list recompiles byte for byte")
    func unusedLabel() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let list = folder.write("i.csv", "number,label\n3316200####,First\n3316200####,Shadowed\n33162000123,Third\n")
        try compile(identify: [list], output: folder.file("i.calldir"))
        #expect(try CallDirIndex(path: folder.file("i.calldir")).distinctLabels() == ["First", "Third"])
        _ = try export(folder.file("i.calldir"), .text, to: folder.file("i.txt"))
        #expect(try String(contentsOfFile: folder.file("i.txt"), encoding: .utf8)
                == "3316200####\tFirst\n33162000123\tThird\n")
        try compile(identify: [folder.file("i.txt")], output: folder.file("again.calldir"))
        #expect(fileBytes(folder.file("again.calldir")) == fileBytes(folder.file("i.calldir")))
    }

    @Test("an expanding export above --max-numbers is refused and writes nothing")
    func budget() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let list = folder.write("b.txt", "33162######\n33162000123\n")
        try compile(block: [list], output: folder.file("b.calldir"))
        let error = #expect(throws: CallDirError.self) {
            try export(folder.file("b.calldir"), .vcard, to: folder.file("b.vcf")) { $0.maxNumbers = 999_999 }
        }
        #expect(error?.code == .limitExceeded && error?.message.contains("list at least 1,000,000 numbers") == true)
        #expect(!FileManager.default.fileExists(atPath: folder.file("b.vcf")))
        // The exact number inside the range is listed once: exactly at the budget passes.
        let summary = try export(folder.file("b.calldir"), .text, to: folder.file("b.txt")) {
            $0.maxNumbers = 1_000_000
            $0.ranges = .expand
        }
        #expect(summary.records == 1_000_000)
    }
}

/// Labels are bytes: two canonically equivalent labels (NFC "é" and "e" + U+0301), which Swift's
/// String equality calls equal, stay two labels through every export and back.
@Suite("Export round trips: labels as bytes")
struct ExportLabelBytesTests {
    static let composed = "Caf\u{E9} Bleu", decomposed = "Cafe\u{301} Bleu"

    /// Each number's label as bytes, in number order.
    func labelBytes(_ path: String) throws -> [String: [UInt8]] {
        var out: [String: [UInt8]] = [:]
        try CallDirIndex(path: path).forEachIdentifiedNumber { out[String($0)] = Array($1.utf8) }
        return out
    }

    @Test("distinctLabels and every export format keep both byte forms")
    func equivalentLabels() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let list = folder.write("i.csv", "number,label\n13125550110,\(Self.composed)\n13125550111,\(Self.decomposed)\n")
        let original = folder.file("original.calldir")
        try compile(identify: [list], output: original)
        let expected = try labelBytes(original)
        #expect(expected == ["13125550110": Array(Self.composed.utf8), "13125550111": Array(Self.decomposed.utf8)])
        #expect(try CallDirIndex(path: original).distinctLabels().map { Array($0.utf8) }
                == [Array(Self.composed.utf8), Array(Self.decomposed.utf8)])

        for (format, file) in [(ExportFormat.csv, "i.csv"), (.text, "i.txt"), (.begone, "i.plist"), (.vcard, "i.vcf")] {
            var options = ExportOptions(format: format)
            options.kind = .identify
            let exported = folder.file("out-" + file)
            _ = try Exporter(index: CallDirIndex(path: original), options: options).run(to: exported)
            let again = folder.file("again-\(file).calldir")
            try compile(identify: [exported], output: again) { $0.sort = true }
            #expect(try labelBytes(again) == expected, "\(format) merged or swapped the equivalent labels")
        }
        _ = try Exporter(index: CallDirIndex(path: original), options: ExportOptions(format: .saracroche))
            .run(to: folder.file("list.json"))
        var options = CompileOptions(output: folder.file("list.calldir"))
        options.identifySources = [.list(folder.file("list.json"))]
        var diagnostics: [Diagnostic] = []
        try compile(options, diagnostics: &diagnostics)
        #expect(try labelBytes(folder.file("list.calldir")) == expected, "saracroche merged the equivalent labels")
    }
}
