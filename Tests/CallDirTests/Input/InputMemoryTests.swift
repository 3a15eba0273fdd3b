import Foundation
import Testing
@testable import CallDir
import TestSupport

/// The named seeds of the fuzz corpus (`Fuzz/Corpus/NAME`): real lists of every format, gzip
/// included, made from `data/` and the fixtures. The entries runs added (named by their SHA-1)
/// are mostly invalid input and are left out.
private func fuzzSeeds(_ harness: String) throws -> [String] {
    let folder = packageRoot.appendingPathComponent("Fuzz/Corpus/\(harness)").path
    let isHash = { (name: String) in name.count == 40 && name.allSatisfy(\.isHexDigit) }
    return try FileManager.default.contentsOfDirectory(atPath: folder).filter { !isHash($0) }.sorted()
        .map { folder + "/" + $0 }
}

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// Reading bytes in memory (`openSource(bytes:)`, what the fuzz harnesses drive) must give
/// what reading the same bytes from a file gives, with the standard and the small buffers.
@Suite("Input: bytes in memory and small read buffers")
struct InputMemoryTests {
    @Test(arguments: ["TextList", "VCard", "Gzip", "JSONList", "Plist"])
    func memoryReadsLikeTheFile(harness: String) throws {
        let seeds = try fuzzSeeds(harness)
        #expect(!seeds.isEmpty)
        for path in seeds {
            let format: InputFormat = harness == "VCard" ? .vcard : .auto
            let fromFile = try collectRows(openSource(path: path, format: format))
            #expect(!fromFile.isEmpty, "\(path) has no rows")
            let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            for buffers in [ReadBuffers.standard, .small] {
                let source = try openSource(bytes: data, name: path, format: format, buffers: buffers)
                #expect(try collectRows(source) == fromFile, "\(path) with \(buffers)")
            }
        }
    }

    @Test func smallBuffersMoveLinesAcrossManyRefills() throws {
        // ~60 KB of lines with CRLF ends and a BOM: dozens of 1 KiB chunks and 8 KiB line buffers.
        let lines = (0..<3000).map { "+3361\(String(format: "%06d", $0 * 7))\r\n" }
        let rows = try collectRows(openSource(bytes: bytes("\u{FEFF}" + lines.joined()), name: "list",
                                              buffers: .small))
        #expect(rows.count == 3000)
        #expect(rows.first == CollectedRow(1, "+3361000000"))
        #expect(rows.last == CollectedRow(3000, "+3361020993"))
    }

    @Test func smallBuffersKeepTheLineLimitAndSayIt() throws {
        let limit = ReadBuffers.small.maxLineLength
        let atLimit = "1\n" + String(repeating: "8", count: limit) + "\n2\n"
        let rows = try collectRows(openSource(bytes: bytes(atLimit), name: "list", buffers: .small))
        #expect(rows.map(\.number.count) == [1, limit, 1])

        let over = "1\n" + String(repeating: "9", count: limit + 1) + "\n"
        let error = callDirError { _ = try collectRows(openSource(bytes: bytes(over), name: "list", buffers: .small)) }
        #expect(error?.message.hasPrefix("line longer than 4096 bytes;") == true)
        #expect(error?.line == 2)
        #expect(error?.path == "list")
    }

    @Test func smallBuffersBoundFoldedVCardProperties() throws {
        let fold = String(repeating: " 1234567890\r\n", count: 500)  // 5,000 bytes unfolded
        let card = "BEGIN:VCARD\r\nVERSION:3.0\r\nNOTE:x\r\n\(fold)TEL:+33612345678\r\nEND:VCARD\r\n"
        let error = callDirError {
            _ = try collectRows(openSource(bytes: bytes(card), name: "card.vcf", buffers: .small))
        }
        #expect(error?.message.hasPrefix("folded property longer than 4096 bytes;") == true)
        #expect(error?.line == 3)
        // The standard limit (1 MiB) takes the same card.
        let rows = try collectRows(openSource(bytes: bytes(card), name: "card.vcf"))
        #expect(rows.map(\.number) == ["+33612345678"])
    }

    @Test func bytesInMemoryCanBeReadAgain() throws {
        let source = TextListSource(origin: InputOrigin(bytes: bytes("+15551230001\tA\n+15551230002\n"),
                                                        name: "twice", buffers: .small), options: .init())
        let first = try collectRows(source)
        #expect(first == [CollectedRow(1, "+15551230001", "A"), CollectedRow(2, "+15551230002")])
        #expect(try collectRows(source) == first)
    }
}
