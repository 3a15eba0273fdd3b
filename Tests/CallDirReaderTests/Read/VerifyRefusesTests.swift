import Foundation
import Testing
@testable import CallDirReader
import TestSupport

/// Issue 39 item 4b: `verify` refuses what FORMAT.md says a reader must refuse ("What a
/// reader refuses"). Each case is one forgery of the damage tests' index with every checksum
/// resealed (so only the check under test stands in the way), and `verify` must name it.
/// An independent reader written from FORMAT.md refused these; calldir's verify accepted them.
@Suite("What verify refuses")
struct VerifyRefusesTests {
    typealias Edit = @Sendable (inout Forger, CallDirIndex) throws -> Void

    /// The forgeries: what each edits, and the words `verify` must use.
    static let cases: [(name: String, check: String, edit: Edit)] = [
        ("header reserved bytes", "header: bytes 36-59 are not zero", { f, _ in f.bytes[40] = 1 }),
        ("section table reserved bytes", "section table: entry 0: reserved bytes are not zero", { f, _ in
            f.bytes[Int(f.read(24, 8)!) + 4] = 1
        }),
        ("non-zero gap after the metadata", "(after metadata) is not zero bytes", { f, _ in
            let metadata = try #require(f.section(1))
            try #require((metadata.offset + metadata.length) % 64 != 0, "no gap after the metadata")
            f.bytes[metadata.offset + metadata.length] = 0xAA
        }),
        ("overlapping sections", "overlaps blocked-numbers", { f, _ in
            // The blocked numbers reach 8 bytes into the next section (their last block longer).
            let entry = try #require(f.sections.first { $0.kind == 2 })
            let next = try #require(f.sections.map(\.offset).filter { $0 > entry.offset }.min())
            f.write(entry.entry + 16, 8, UInt64(next - entry.offset + 8))
        }),
        ("numbers section without its zero padding", "blocked-numbers: the section does not end with its 8 zero bytes", { f, _ in
            let numbers = try #require(f.section(2))
            f.bytes[numbers.offset + numbers.length - 1] = 1
        }),
        ("directory reserved bytes", "blocked-directory: bytes 12-15 are not zero", { f, _ in
            f.bytes[try #require(f.section(3)).offset + 12] = 1
        }),
        ("an extra high-part byte", "block 2: high part of", { f, _ in
            // The last block ends 8 bytes before its section's end: one more section byte (from
            // the zero gap after it) is one more zero byte in the block's high part.
            let entry = try #require(f.sections.first { $0.kind == 2 })
            try #require((entry.offset + entry.length) % 64 != 0, "no gap after the blocked numbers")
            f.write(entry.entry + 16, 8, UInt64(entry.length + 1))
        }),
        ("generator string not UTF-8", "metadata: the generator string is not UTF-8", { f, _ in
            f.bytes[try #require(f.section(1)).offset + 100] = 0xFF
        }),
        ("stream-label map against its count", "its stream-label map does not mark", { f, index in
            // The first identified block mixing stream and shared labels: one more bit set in its map.
            let set = index.identified
            let b = try #require((0..<set.blockCount).first { b in
                set.reader(forBlock: b).map { $0.streamCount > 0 && $0.streamCount < $0.count } ?? false
            })
            let block = try #require(set.reader(forBlock: b))
            let j = try #require((0..<block.count).first { !LabelRef.isStream(block.label(at: $0)) })
            let numbers = try #require(f.section(4))
            f.bytes[numbers.offset + set.entry(b).offset + block.labelStart + j / 8] |= UInt8(1) << UInt8(j % 8)
        }),
        ("identified range reserved bytes", "identified-ranges: range 0: bytes 20-23 are not zero", { f, _ in
            f.bytes[try #require(f.section(8)).offset + 20] = 1
        }),
    ]

    @Test("each forgery, every checksum resealed, is refused by verify, which names the check",
          arguments: 0..<cases.count)
    func verifyNamesIt(_ i: Int) throws {
        let (name, check, edit) = Self.cases[i]
        let folder = TempFolder()
        defer { folder.remove() }
        let (path, _) = try DamageTests().makeIndex(folder)
        let original = try CallDirIndex(path: path, verify: true)
        var forger = Forger(bytes: fileBytes(path))
        try edit(&forger, original)
        forger.reseal()
        let forged = folder.write("forged.calldir", forger.bytes)
        #expect(throws: CallDirError.self, "\(name): verify accepted it") { try CallDirIndex(path: forged, verify: true) }
        do {
            _ = try CallDirIndex(path: forged, verify: true)
        } catch let error as CallDirError {
            #expect(error.message.contains(check), "\(name): \(error.message)")
        }
    }

    /// Issue 45: forgeries that decode like the original (so lookups answer alike) but are
    /// other bytes, which FORMAT.md says cannot exist. On an index with empty sections (no
    /// identification entries, no labels, no identified ranges).
    static let sameAnswerCases: [(name: String, check: String, edit: @Sendable (inout Forger) throws -> Void)] = [
        ("empty numbers section padded with zero bytes", "identified-numbers: holds no numbers in 16 bytes", { f in
            let entry = try #require(f.sections.first { $0.kind == 4 })
            f.write(entry.entry + 16, 8, 16)
        }),
        ("empty shared label store padded with zero bytes", "shared-labels: holds no labels in 24 bytes", { f in
            let entry = try #require(f.sections.first { $0.kind == 10 })
            f.write(entry.entry + 16, 8, 24)
        }),
        ("empty stream label store padded with zero bytes", "stream-labels: holds no labels in 24 bytes", { f in
            let entry = try #require(f.sections.first { $0.kind == 11 })
            f.write(entry.entry + 16, 8, 24)
        }),
        ("zero bytes before the trailer", "trailer: bytes lie between the section table and the trailer", { f in
            f.bytes.insert(contentsOf: [UInt8](repeating: 0, count: 64), at: f.bytes.count - 16)
            f.write(16, 8, UInt64(f.bytes.count))
        }),
        ("64 zero bytes before the section table", "section table: starts at", { f in
            let table = Int(f.read(24, 8)!)
            f.bytes.insert(contentsOf: [UInt8](repeating: 0, count: 64), at: table)
            f.write(24, 8, UInt64(table + 64))
            f.write(16, 8, UInt64(f.bytes.count))
        }),
        ("table entries reordered", "not at", { f in
            let table = Int(f.read(24, 8)!)
            let first = Array(f.bytes[table..<(table + 32)])
            f.bytes.replaceSubrange(table..<(table + 32), with: f.bytes[(table + 32)..<(table + 64)])
            f.bytes.replaceSubrange((table + 32)..<(table + 64), with: first)
        }),
        ("two sections swapped in the file, the table in file order", "out of the writer's order", { f in
            // The blocked directory and its page table: 32 bytes each, 64 apart.
            let dir = try #require(f.sections.first { $0.kind == 3 }), pages = try #require(f.sections.first { $0.kind == 12 })
            try #require(dir.length == pages.length && pages.offset == dir.offset + 64)
            let a = Array(f.bytes[dir.offset..<(dir.offset + 64)])
            f.bytes.replaceSubrange(dir.offset..<(dir.offset + 64), with: f.bytes[pages.offset..<(pages.offset + 64)])
            f.bytes.replaceSubrange(pages.offset..<(pages.offset + 64), with: a)
            let entryA = Array(f.bytes[dir.entry..<(dir.entry + 32)]), entryB = Array(f.bytes[pages.entry..<(pages.entry + 32)])
            f.bytes.replaceSubrange(dir.entry..<(dir.entry + 32), with: entryB)
            f.bytes.replaceSubrange(pages.entry..<(pages.entry + 32), with: entryA)
            f.write(dir.entry + 8, 8, UInt64(dir.offset))  // now the pages' entry, first in the table and the file
            f.write(pages.entry + 8, 8, UInt64(pages.offset))
        }),
    ]

    @Test("resealed forgeries that decode like the original (padding, moved parts) are refused by verify",
          arguments: 0..<sameAnswerCases.count)
    func verifyRefusesOtherBytes(_ i: Int) throws {
        let (name, check, edit) = Self.sameAnswerCases[i]
        let folder = TempFolder()
        defer { folder.remove() }
        let path = folder.file("blocked.calldir")
        try buildIndex(block: ["14085550000", "14085550007"], output: path)
        _ = try CallDirIndex(path: path, verify: true)
        var forger = Forger(bytes: fileBytes(path))
        try edit(&forger)
        forger.reseal()
        let forged = folder.write("forged.calldir", forger.bytes)
        // It decodes as the original: opening and a lookup still work (only verify tells).
        #expect(try CallDirIndex(path: forged).lookup(14_085_550_007).blocked != nil, "\(name): the forgery does not read")
        do {
            _ = try CallDirIndex(path: forged, verify: true)
            Issue.record("\(name): verify accepted it")
        } catch let error as CallDirError {
            #expect(error.message.contains(check), "\(name): \(error.message)")
        }
    }
}
