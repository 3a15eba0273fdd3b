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

/// Issue 47: `lookup --personal` answered through a second loop that ignored `--json`,
/// `--anonymous` and `--invalid`. It now goes through the one answer path.
@Suite("lookup with the user's layer: one answer path")
struct PersonalLookupPathCLITests {
    static func setUp(_ folder: TempFolder) throws -> (index: String, personal: String) {
        let index = folder.file("i.calldir")
        #expect(try CLI.run(["compile", "--block", folder.write("b.txt", "+33612345670\n+33612345671\n"), "-o", index, "-q"]).status == 0)
        return (index, folder.write("personal.txt", "calldir-personal 1\nallow +33612345671\nblock +33698765432\n"))
    }

    @Test("--anonymous block and --invalid block decide for inputs that are not numbers, as without the layer")
    func policyApplies() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let (index, personal) = try Self.setUp(folder)
        for layer in [[], ["--personal", personal]] {
            let result = try CLI.run(["lookup", "--index", index] + layer + ["--anonymous", "block", "anonymous"])
            #expect(result.status == 0, "\(layer): \(result.stdout) \(result.stderr)")
            #expect(result.stdout == "anonymous  blocked (not a number: anonymous)\n", "\(layer): \(result.stdout)")
        }
    }

    @Test("--json with the layer: one object per input, the layer's rules under personal")
    func jsonApplies() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let (index, personal) = try Self.setUp(folder)
        for input in [["+33612345670", "+33612345671", "+33698765432"], ["-"]] {
            let result = try CLI.run(["lookup", "--index", index, "--personal", personal, "--json"] + input,
                                     stdin: "+33612345670\n+33612345671\n+33698765432\n")
            let objects = result.stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(objects.count == 3, "\(result.stdout)")
            guard objects.count == 3 else { continue }
            #expect(objects[0]["action"] as? String == "block" && objects[0]["personal"] == nil)
            #expect(objects[1]["action"] as? String == "allow" && objects[1]["personal"] as? [String] == ["exception"])
            #expect(objects[2]["action"] as? String == "block" && objects[2]["personal"] as? [String] == ["your block"])
            #expect(result.status == 1, "one answer is allow: \(result.status)")
        }
    }

    @Test("text with the layer names the rule, as before")
    func textNamesTheRule() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let (index, personal) = try Self.setUp(folder)
        let result = try CLI.run(["lookup", "--index", index, "--personal", personal, "+33612345671", "+33698765432"])
        #expect(result.stdout == "+33612345671  unknown (exception)\n+33698765432  blocked (your block)\n", "\(result.stdout)")
    }
}
