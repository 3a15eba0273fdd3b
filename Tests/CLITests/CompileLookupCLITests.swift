import Foundation
import Testing

@Suite("calldir as a process")
struct CompileLookupCLITests {
    @Test("compile then lookup through the default index path, with grep-like exit codes")
    func defaultIndexFlow() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let env = ["CALLDIR_INDEX": scratch.file("default.calldir")]
        let block = scratch.write("blocked.txt", "14085555555\n18005555555\n")
        let identify = scratch.write("identified.txt", "18775555555\tTelemarketer\n18885555555\tLocal business\n")
        let compiled = try CLI.run(["compile", "--block", block, "--identify", identify], environment: env)
        #expect(compiled.status == 0, "\(compiled.stderr)")
        #expect(compiled.stderr.contains("compiled 4 numbers, 0 ranges (4 device entries): blocked 2 numbers and 0 ranges, identified 2 numbers and 0 ranges (2 labels)"), "\(compiled.stderr)")
        #expect(FileManager.default.fileExists(atPath: scratch.file("default.calldir")))

        let found = try CLI.run(["lookup", "18005555555", "18775555555"], environment: env)
        #expect(found.status == 0)
        #expect(found.stdout == "+18005555555  blocked\n+18775555555  identified: Telemarketer\n")

        let unknown = try CLI.run(["lookup", "18005555555", "12125550000"], environment: env)
        #expect(unknown.status == 1)
        #expect(unknown.stdout.hasSuffix("+12125550000  unknown\n"))

        let json = try CLI.run(["lookup", "--json", "18885555555"], environment: env)
        #expect(json.stdout == #"{"input":"18885555555","valid":true,"number":"+18885555555","e164":18885555555,"action":"identify","blocked":false,"label":"Local business","labelMatch":"exact"}"# + "\n")
    }

    /// Issue 44: `--country CX` reads CX's own rules in compile and in both lookups (the front's
    /// and calldir-cli's, with `-`); `--country 61` Australia's, so the same digits differ.
    @Test("--country REGION reads that region's rules, a calling code its main region's")
    func countryRegionRules() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = scratch.file("cx.calldir")
        let block = scratch.write("cx.txt", "90667967\n")
        #expect(try CLI.run(["compile", "-q", "--country", "CX", "--block", block, "-o", index]).status == 0)
        let front = try CLI.run(["lookup", "--index", index, "--country", "cx", "90667967", "+61 8 9066 7967"])
        #expect(front.stdout == "+61890667967  blocked\n+61890667967  blocked\n", "\(front.stdout)")
        let stdin = try CLI.run(["lookup", "--index", index, "--country", "CX", "-"], stdin: "90667967\n")
        #expect(stdin.stdout == "+61890667967  blocked\n", "\(stdin.stdout)")
        let code = try CLI.run(["lookup", "--index", index, "--country", "61", "90667967"])
        #expect(code.stdout == "+6190667967  unknown\n", "\(code.stdout)")
    }

    @Test("stdin lookups answer every line in order")
    func stdinLookups() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = scratch.file("i.calldir")
        let block = scratch.write("b.txt", (0..<1000).map { "\(14_085_550_000 + $0 * 3)\n" }.joined())
        #expect(try CLI.run(["compile", "-q", "--block", block, "-o", index]).status == 0)
        let queries = (0..<3000).map { "\(14_085_550_000 + $0)" }
        let result = try CLI.run(["lookup", "--index", index, "-"], stdin: queries.joined(separator: "\n") + "\n")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 3000)
        for (i, line) in lines.enumerated() {
            #expect(line.hasSuffix(i % 3 == 0 ? "blocked" : "unknown"), "line \(i): \(line)")
        }
        #expect(result.status == 1)
    }

    @Test("stdin lookups: CRLF, blank lines, formatted numbers, labels, errors in order, last line without newline")
    func stdinMixed() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = scratch.file("i.calldir")
        let block = scratch.write("b.txt", "12015550100\n12015550102\n3316200####\n")
        let identify = scratch.write("i.txt", "12015550102\tTelemarketer\n")
        #expect(try CLI.run(["compile", "-q", "--block", block, "--identify", identify, "-o", index]).status == 0)
        let input = "12015550100\r\n\n+1 (201) 555-0101\nnot a number\n3316200####\n12015550102"
        let text = try CLI.run(["lookup", "--index", index, "-"], stdin: input)
        #expect(text.stdout == """
            +12015550100  blocked
              unknown (not a number: empty)
            +12015550101  unknown
            not a number  unknown (not a number: invalid-character)
            3316200####  unknown (not a number: range)
            +12015550102  blocked, identified: Telemarketer

            """)
        #expect(text.stderr.isEmpty)
        #expect(text.status == 1)
        let json = try CLI.run(["lookup", "--json", "--index", index, "-"], stdin: input)
        let lines = json.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 6)
        #expect(lines[0].contains(#""action":"block""#) && lines[1].contains(#""reason":"empty""#))
        #expect(lines[2].contains(#""action":"allow""#))
        #expect(lines[3].contains(#""input":"not a number","valid":false,"reason":"invalid-character""#))
        #expect(lines[4].contains(#""reason":"range""#))
        #expect(lines[5].contains(#""label":"Telemarketer""#))
    }

    @Test("a list out of order fails with file:line and exit 1, leaving no index")
    func invalidList() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let block = scratch.write("blocked.txt", "18005555555\n14085555555\n")
        let result = try CLI.run(["compile", "--block", block, "-o", scratch.file("i.calldir")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(block):2: 14085555555 is not above 18005555555 (line 1): entries out of order (CallKit error 3); --sort accepts any order"))
        #expect(!FileManager.default.fileExists(atPath: scratch.file("i.calldir")))
    }

    @Test("missing or damaged index: lookup exits 2 with a message, verify exits 1 naming the section")
    func damagedIndex() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let missing = try CLI.run(["lookup", "--index", scratch.file("none.calldir"), "18005555555"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("no index file here"))

        let index = scratch.file("i.calldir")
        let block = scratch.write("b.txt", (0..<2000).map { "\(14_085_550_000 + $0 * 7)\n" }.joined())
        #expect(try CLI.run(["compile", "-q", "--block", block, "-o", index]).status == 0)
        var bytes = Array(FileManager.default.contents(atPath: index)!)
        bytes[200] ^= 0xFF  // inside the first blocks of blocked numbers
        _ = FileManager.default.createFile(atPath: index, contents: Data(bytes))
        let verify = try CLI.run(["verify", index])
        #expect(verify.status == 1)
        #expect(verify.stderr.contains("blocked-numbers"))
        let lookup = try CLI.run(["lookup", "--index", index, "14085550000"])
        #expect(lookup.status == 2)
        #expect(lookup.stderr.contains("checksum"))

        // A stream: the batch stops at the damaged block, and the rest are answered one by one
        // (the damaged block's numbers with an error line each, in their place), in order.
        let queries = (0..<2000).map { "\(14_085_550_000 + $0 * 7)" }
        let stream = try CLI.run(["lookup", "--index", index, "-"], stdin: queries.joined(separator: "\n") + "\n")
        #expect(stream.status == 2)
        #expect(stream.stderr.contains("checksum"))
        let answered = stream.stdout.split(separator: "\n").map(String.init)
        let error = "  error (blocked-numbers: block 0 fails its checksum; run `calldir verify`)"
        #expect(answered == queries[..<256].map { "+\($0)\(error)" } + queries[256...].map { "+\($0)  blocked" },
                "block 0 (the first 256 numbers) is damaged")
    }

    @Test("inspect --json reports counts and the format version")
    func inspect() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = scratch.file("i.calldir")
        let block = scratch.write("b.txt", "14085555555\n18005555555\n1900555####\n")
        #expect(try CLI.run(["compile", "-q", "--block", block, "-o", index, "--build-time", "1767225600"]).status == 0)
        let result = try CLI.run(["inspect", "--json", index])
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(object?["formatVersion"] as? String == "3.0")
        #expect(object?["blockedNumbers"] as? Int == 2)
        #expect(object?["blockedRangeNumbers"] as? Int == 10_000)
        #expect(object?["buildTime"] as? String == "2026-01-01T00:00:00Z")
    }

    /// Issue 33: `inspect` counts the numbers stored one by one per libphonenumber type (types
    /// as phonenumbers 9.0.43's `number_type` gives them), invalid ones apart; ranges untyped.
    @Test("inspect counts numbers per type, text and --json")
    func inspectTypes() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = scratch.file("i.calldir")
        // fixed line or mobile (US), toll-free, CH mobile, CH possible but not valid, a range
        let block = scratch.write("b.txt", "14085555555\n18005555555\n+41791234567\n+41991234567\n1900555####\n")
        let identify = scratch.write("i.txt", "+441234567890\tGB fixed line\n")
        #expect(try CLI.run(["compile", "-q", "--block", block, "--identify", identify, "-o", index]).status == 0)
        let json = try CLI.run(["inspect", "--json", index])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["numbersByType"] as? [String: Int]
                == ["fixed-line": 1, "mobile": 1, "fixed-line-or-mobile": 1, "toll-free": 1, "invalid": 1])
        let text = try CLI.run(["inspect", index]).stdout
        #expect(text.contains("types            fixed-line 1, mobile 1, fixed-line-or-mobile 1, toll-free 1, invalid 1 "
                              + "(numbers stored one by one; ranges are not typed)\n"), "\(text)")
    }
}

