import Foundation
import Testing
import TestSupport

/// Issue 45: `lookup --personal/--contacts -` on an index with one damaged block answered no
/// line at all. Every input line gets its line, the damaged block's numbers an error line.
@Suite("The user's layer on a damaged index")
struct PersonalDamageCLITests {
    @Test("lookup --personal/--contacts - answers every line; the damaged block's numbers get error lines, exit 2")
    func damagedBlockWithLayer() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let numbers = (0..<600).map { 14_085_550_000 + Int64($0) * 7 }  // three blocks
        let index = folder.file("i.calldir")
        #expect(try CLI.run(["compile", "--block", folder.write("b.txt", numbers.map { "\($0)\n" }.joined()),
                             "-o", index, "-q"]).status == 0)
        var forger = Forger(bytes: fileBytes(index))
        let block = try #require(forger.blocks(numbers: 2, directory: 3).dropFirst().first)  // block 1: numbers 256...511
        forger.bytes[(block.start + block.end) / 2] ^= 0x5A  // its CRC no longer matches
        let damaged = folder.write("damaged.calldir", forger.bytes)
        let personal = folder.write("personal.txt", "calldir-personal 1\nblock +33612345678\n")
        let contacts = folder.write("contacts.vcf", "BEGIN:VCARD\nVERSION:3.0\nFN:A\nTEL:+33698765432\nEND:VCARD\n")
        let inputs = [numbers[0], numbers[300], numbers[599], 33_612_345_678]
        for layer in [["--personal", personal], ["--contacts", contacts]] {
            let result = try CLI.run(["lookup", "--index", damaged] + layer + ["-"],
                                     stdin: inputs.map { "+\($0)\n" }.joined())
            let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            #expect(lines.count == inputs.count, "\(layer[0]): \(lines.count) lines for \(inputs.count) inputs: \(result.stdout)")
            #expect(result.status == 2, "\(layer[0]): exit \(result.status)")
            guard lines.count == inputs.count else { continue }
            #expect(lines[0].hasSuffix("blocked"), "\(lines[0])")
            #expect(lines[1].hasPrefix("+\(numbers[300])  error (") && lines[1].contains("checksum"), "\(lines[1])")
            #expect(lines[2].hasSuffix("blocked"), "\(lines[2])")
            #expect(result.stderr.contains("checksum"), "\(result.stderr)")
        }
    }
}
