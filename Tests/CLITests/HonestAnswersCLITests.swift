import Foundation
import Testing
@testable import CallDirReader
import TestSupport

/// Issue 39 items 1 and 3 as a user meets them: `lookup -` keeps one answer line per input
/// line on a damaged index, and a file `verify` rejects is refused by lookup, export and diff
/// (exit 2, the check named) instead of answering from what the forger wrote.
@Suite("Honest answers from damaged and forged indexes")
struct HonestAnswersCLITests {
    static let blocked = (0..<600).map { 14_085_550_000 + Int64($0) * 7 }
    static let identified = (0..<300).map { 18_005_550_000 + Int64($0) * 13 }

    /// Three blocks of blocked numbers and a blocked range; identified numbers whose labels
    /// fill both label stores (shared "Caller N", stream "Business N"), and a labelled range.
    static func makeIndex(_ folder: TempFolder) throws -> String {
        let block = folder.write("b.txt", blocked.map { "\($0)\n" }.joined() + "190055500##\n")
        let identify = folder.write("i.csv", identified.map { "\($0),\($0 % 3 == 0 ? "Business \($0)" : "Caller \($0 % 5)")\n" }
            .joined() + "331620000##,Range\n")
        let path = folder.file("index.calldir")
        let compiled = try CLI.run(["compile", "--block", block, "--identify", identify, "-o", path, "-q"])
        #expect(compiled.status == 0, "\(compiled.stderr)")
        return path
    }

    @Test("lookup - on an index with one flipped byte: one answer line per input, an error line in place of each unreadable answer, exit 2",
          arguments: [false, true])
    func oneLinePerInputOnDamage(json: Bool) throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let path = try Self.makeIndex(folder)
        var forger = Forger(bytes: fileBytes(path))
        let damaged = forger.blocks(numbers: 2, directory: 3)[1]
        forger.bytes[(damaged.start + damaged.end) / 2] ^= 0x10  // no reseal: the block's CRC no longer matches
        let index = folder.write("damaged.calldir", forger.bytes)
        let numbers = stride(from: 0, to: 600, by: 25).map { Self.blocked[$0] }
        let caller = Self.identified[1]  // labelled "Caller \(caller % 5)"
        let inputs = numbers.map { "+\($0)" } + ["anonymous", "+\(caller)"]
        let result = try CLI.run(["lookup", "--index", index] + (json ? ["--json"] : []) + ["-"],
                                 stdin: inputs.joined(separator: "\n") + "\n")
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("blocked-numbers: block 1"), "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        try #require(lines.count == inputs.count, "\(inputs.count) inputs, \(lines.count) answer lines:\n\(result.stdout)")
        for (i, number) in numbers.enumerated() {
            let inDamagedBlock = (256..<512).contains(i * 25)
            let line = String(lines[i])
            if json {
                let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                #expect(object["input"] as? String == inputs[i])
                #expect((object["error"] as? String).map { $0.contains("blocked-numbers: block 1") } ?? false == inDamagedBlock, "\(line)")
                #expect((object["blocked"] as? Bool) == (inDamagedBlock ? nil : true), "\(line)")
            } else {
                #expect(line.hasPrefix("+\(number)  "), "\(line)")
                #expect(line.hasSuffix(inDamagedBlock ? "" : "  blocked"), "\(line)")
                #expect(line.contains("  error (blocked-numbers: block 1") == inDamagedBlock, "\(line)")
            }
        }
        #expect(lines[numbers.count].contains("anonymous"))
        let label = "Caller \(caller % 5)"
        #expect(lines[numbers.count + 1].contains(json ? "\"label\":\"\(label)\"" : "identified: \(label)"), "\(lines[numbers.count + 1])")
        if json && JSONSchemaCLITests.hasValidator {  // error lines and answers alike match docs/schemas/lookup
            try JSONSchemaCLITests.expectValid(result.stdout, schema: "lookup", lines: inputs.count)
        }
    }

    /// Forgeries (every checksum resealed) that `verify` rejects, and the check each one fails.
    static func forgeries(_ original: [UInt8]) throws -> [(name: String, bytes: [UInt8], check: String)] {
        var result: [(String, [UInt8], String)] = []
        // The blocked-ranges section emptied: the range vanished, metadata still counts it.
        var emptied = Forger(bytes: original)
        let rangesEntry = try #require(emptied.sections.first { $0.kind == 7 })
        emptied.write(rangesEntry.entry + 16, 8, 0)
        emptied.reseal()
        result.append(("emptied range section", emptied.bytes, "metadata: counts disagree with the sections"))
        // The blocked range ends past 15 digits (at +4737979244003459072).
        var long = Forger(bytes: original)
        long.write(try #require(long.section(7)).offset + 8, 8, 4_737_979_244_003_459_072)
        long.reseal()
        result.append(("range past 15 digits", long.bytes, "blocked-ranges: range 0 is out of order"))
        // A symbol's byte turned into a newline: the labels that use it now hold one.
        var newline = Forger(bytes: original)
        let symbols = try #require(newline.section(9))
        let symbolCount = Int(newline.read(symbols.offset, 4)!)
        newline.bytes[symbols.offset + 4 + symbolCount] = 0x0A
        newline.reseal()
        result.append(("newline in a label", newline.bytes, "a label is invalid (label-control-character)"))
        // The first stream-label block's step table entry 0 moved to entry 1's label.
        var moved = Forger(bytes: original)
        let streamBlock = try #require(moved.labelBlocks(11).first)
        moved.write(streamBlock.start, 2, moved.read(streamBlock.start + 2, 2)!)
        moved.reseal()
        result.append(("moved step table", moved.bytes, "step table entry 0 does not locate label 4"))
        return result
    }

    @Test("a file verify rejects (exit 1) is refused by lookup, export and diff: exit 2, the check named, no answer the original never had")
    func refusedLikeVerify() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let path = try Self.makeIndex(folder)
        let inputs = (Self.identified + [19_005_550_012, 33_162_000_012]).map { "+\($0)" }.joined(separator: "\n") + "\n"
        let honest = try CLI.run(["lookup", "--index", path, "-"], stdin: inputs)
        #expect(honest.status == 0, "\(honest.stderr)")
        let honestLines = honest.stdout.split(separator: "\n").map(String.init)
        for (name, bytes, check) in try Self.forgeries(fileBytes(path)) {
            let forged = folder.write("forged.calldir", bytes)
            let verified = try CLI.run(["verify", forged])
            #expect(verified.status == 1 && verified.stderr.contains(check), "\(name): verify: \(verified.stderr)")
            let looked = try CLI.run(["lookup", "--index", forged, "-"], stdin: inputs)
            #expect(looked.status == 2 && looked.stderr.contains(check), "\(name): lookup: \(looked.stderr)")
            let lines = looked.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            if !looked.stdout.isEmpty {  // refused at open: nothing; else every answer the original's, or an error
                #expect(lines.count == honestLines.count, "\(name): \(lines.count) lines for \(honestLines.count) inputs")
                for (line, original) in zip(lines, honestLines) where line != original {
                    #expect(line.contains("  error ("), "\(name): \(line) where the original answers \(original)")
                }
            }
            let csv = folder.file("out.csv")
            let exported = try CLI.run(["export", "--index", forged, "--format", "csv", "--kind", "identify", "-o", csv])
            #expect(exported.status == 2 && exported.stderr.contains(check), "\(name): export: \(exported.stderr)")
            #expect(!FileManager.default.fileExists(atPath: csv), "\(name): export published a file")
            let diffed = try CLI.run(["diff", forged, path, "-o", folder.file("d.delta")])
            #expect(diffed.status == 2 && diffed.stderr.contains(check), "\(name): diff: \(diffed.stderr)")
            let reviewed = try CLI.run(["diff", forged, path, "--report"])
            #expect(reviewed.status == 2 && reviewed.stderr.contains(check), "\(name): diff --report: \(reviewed.stderr)")
        }
    }
}
