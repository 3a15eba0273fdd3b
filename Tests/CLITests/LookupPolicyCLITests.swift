import Foundation
import Testing

/// Caller IDs that are not numbers, the policy flags, `--no-nanp-check`, and the exit codes
/// scripts rely on, through the real `calldir` binary.
@Suite("Lookup policy")
struct LookupPolicyCLITests {
    /// An index blocking +12015550100 and the impossible NANP number 12010000000.
    func index(_ scratch: TempFolder) throws -> String {
        let index = scratch.file("i.calldir")
        let block = scratch.write("b.txt", "12010000000\n12015550100\n")
        let compiled = try CLI.run(["compile", "-q", "--no-nanp-check", "--block", block, "-o", index])
        #expect(compiled.status == 0, "\(compiled.stderr)")
        return index
    }

    @Test("--anonymous and --invalid decide the answer; the fast path and the full parser agree")
    func policy() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = try index(scratch)
        let allowed = try CLI.run(["lookup", "--index", index, "anonymous", "5555"])
        #expect(allowed.stdout == "anonymous  unknown (not a number: anonymous)\n5555  unknown (not a number: too-short)\n")
        #expect(allowed.status == 1)
        for form in [["--anonymous", "block"], ["--anonymous=block"]] {
            let blocked = try CLI.run(["lookup", "--index", index] + form + ["Restricted"])
            #expect(blocked.stdout == "Restricted  blocked (not a number: anonymous)\n")
            #expect(blocked.status == 0)
        }
        let both = try CLI.run(["lookup", "--json", "--invalid", "block", "--index", index, "5555", "private"])
        #expect(both.stdout == """
            {"input":"5555","valid":false,"reason":"too-short","message":"E.164 numbers have 7 to 15 digits, country code included; this has 4","action":"block","blocked":true,"label":null}
            {"input":"private","valid":false,"reason":"anonymous","message":"the caller withheld the number (anonymous, private, restricted or unavailable)","action":"allow","blocked":false,"label":null}

            """)
        #expect(both.status == 1)
        let bad = try CLI.run(["lookup", "--anonymous", "reject", "--index", index, "x"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--anonymous must be allow or block"))
    }

    @Test("--lenient (formerly --no-nanp-check) lists and finds numbers CallKit takes that are not possible numbers")
    func anyNANP() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = try index(scratch)
        for flag in ["--lenient", "--no-nanp-check"] {
            let lenient = try CLI.run(["lookup", flag, "--index", index, "12010000000"])
            #expect(lenient.stdout == "+12010000000  blocked\n")
            #expect(lenient.status == 0)
        }
        // A possible number for libphonenumber (an area code starting with 0 or 1 included).
        let possible = try CLI.run(["lookup", "--index", index, "12010000000"])
        #expect(possible.stdout == "+12010000000  blocked\n")
        // +41 and 8 digits: no possible Swiss number, though CallKit takes it.
        let strict = try CLI.run(["lookup", "--index", index, "4121213091"])
        #expect(strict.stdout == "4121213091  unknown (not a number: too-short)\n")
        let refused = try CLI.run(["compile", "-q", "--block", scratch.write("c.txt", "4121213091\n"), "-o", scratch.file("j.calldir")])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("--lenient takes what CallKit takes"))
        let unknownCode = try CLI.run(["compile", "-q", "--block", scratch.write("d.txt", "+999 123 4567\n"), "-o", scratch.file("k.calldir")])
        #expect(unknownCode.status == 1)
        #expect(unknownCode.stderr.contains("no country uses any of the calling codes +9, +99, +999"))
        let listed = try CLI.run(["compile", "-q", "--lenient", "--block", scratch.file("d.txt"), "-o", scratch.file("k.calldir")])
        #expect(listed.status == 0)
    }

    @Test("--country takes a region (US, ch) as well as a calling code, in lookup and compile")
    func countryRegion() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = try index(scratch)
        for code in ["US", "us", "1", "+1", "CA"] {
            let fast = try CLI.run(["lookup", "--index", index, "--country", code, "(201) 555-0100"])
            #expect(fast.stdout == "+12015550100  blocked\n", "\(code): \(fast.stderr)")
            let full = try CLI.run(["lookup", "--json", "--index", index, "--country=\(code)", "201.555.0100"])
            #expect(full.stdout.contains("\"blocked\":true"), "\(code)")
        }
        let list = scratch.write("ch.txt", "021 213 09 11\n+41 (0)21 213 09 12\n")
        let compiled = try CLI.run(["compile", "-q", "--country", "CH", "--sort", "--block", list, "-o", scratch.file("ch.calldir")])
        #expect(compiled.status == 0, "\(compiled.stderr)")
        let found = try CLI.run(["lookup", "--index", scratch.file("ch.calldir"), "+41212130911", "+41 (0)21 213 09 12"])
        #expect(found.stdout == "+41212130911  blocked\n+41212130912  blocked\n")
        let refused = try CLI.run(["lookup", "--index", index, "--country", "USA", "2015550100"])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("region (US, CH)") || refused.stderr.contains("region"), "\(refused.stderr)")
    }

    @Test("lookup --json: one shape for every answer, input and valid always present, from arguments and stdin")
    func oneShape() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = try index(scratch)
        let inputs = ["12015550100", "+1 (201) 555-0100", "12125550000", "anonymous", "911", "(201) 555-0100", "+999 123 4567"]
        let fromArguments = try CLI.run(["lookup", "--json", "--index", index] + inputs)
        let fromStdin = try CLI.run(["lookup", "--json", "--index", index, "-"], stdin: inputs.joined(separator: "\n") + "\n")
        #expect(fromArguments.stdout == fromStdin.stdout)
        let answers = try fromStdin.stdout.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(answers.count == inputs.count)
        for (input, answer) in zip(inputs, answers) {
            #expect(answer["input"] as? String == input)
            for key in ["valid", "action", "blocked"] { #expect(answer[key] != nil, "\(input): \(key)") }
            #expect(answer.keys.contains("label"))
        }
        #expect(answers.map { $0["valid"] as? Bool } == [true, true, true, false, false, false, false])
        #expect(answers[1]["number"] as? String == "+12015550100")
        // Messages name the rule for the input, and the daemon's batch says the same.
        #expect(answers[5]["message"] as? String == "a national number (written the North American way), without its country code: pass --country (--country 1 for North America)")
        #expect(answers[6]["message"] as? String == "no country uses any of the calling codes +9, +99, +999 (libphonenumber 9.0.43)")
        let zero = try CLI.run(["lookup", "--json", "--country", "1", "--index", index, "+0123456789"])
        #expect(zero.stdout.contains(#""message":"a country calling code never starts with 0""#), "\(zero.stdout)")
        #expect(!zero.stdout.contains("use --country"))
    }

    @Test("a bad --country is a usage error (64) for lookup, compile and serve", arguments: ["0", "1000", "-3", "999", "USA", "ZZ"])
    func badCountry(code: String) throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = try index(scratch)
        #expect(try CLI.run(["lookup", "--index", index, "--country", code, "12015550100"]).status == 64)
        #expect(try CLI.run(["lookup", "--index", index, "--country=\(code)", "12015550100"]).status == 64)
        let list = scratch.write("l.txt", "12015550100\n")
        #expect(try CLI.run(["compile", "--country", code, "--block", list, "-o", scratch.file("x.calldir")]).status == 64)
        #expect(try CLI.run(["serve", "--index", index, "--country", code]).status == 64)
    }

    @Test("a --poll-interval too large to convert is a usage error, not a crash")
    func hugePollInterval() throws {
        let result = try CLI.run(["serve", "--index", "/nonexistent", "--poll-interval", "9223372036854775807"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--poll-interval must be 0 to 86400000"))
    }

    @Test("stdout that cannot be written (a file-size limit) exits 2 with a message, not 0 with a short file")
    func stdoutWriteFailure() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = try index(scratch)
        let numbers = scratch.write("n.txt", String(repeating: "12015550100\n", count: 100_000))
        let output = scratch.file("answers.txt")
        let shell = "trap '' XFSZ; ulimit -f 16; exec '\(CLI.binary)' lookup --index '\(index)' - < '\(numbers)' > '\(output)'"
        let (status, message) = try runShell(shell)
        #expect(status == 2)
        #expect(message.contains("cannot write to stdout: File too large"), "\(message)")
    }
}
