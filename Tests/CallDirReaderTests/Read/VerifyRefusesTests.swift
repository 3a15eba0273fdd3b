import Foundation
import Testing
@testable import CallDir
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
}
