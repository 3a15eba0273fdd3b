import Foundation
import Testing

/// Emergency numbers (`911`, `112`, `999`, `000`, from libphonenumber's short-number metadata)
/// are never blocked or labelled: `--invalid block` lets them through, and a compile refuses a
/// row naming one, saying why.
@Suite("Emergency numbers are never blocked")
struct EmergencyNumberCLITests {
    func index(_ scratch: TempFolder) throws -> String {
        let index = scratch.file("i.calldir")
        let compiled = try CLI.run(["compile", "-q", "--block", scratch.write("b.txt", "+12015550100\n"), "-o", index])
        #expect(compiled.status == 0, "\(compiled.stderr)")
        return index
    }

    /// Each region's own emergency number with its `--country`, and any region's without one.
    @Test("--invalid block allows each region's emergency number, in text, JSON and a stream",
          arguments: [("US", "911"), ("DE", "112"), ("GB", "999"), ("AU", "000"), ("FR", "15"), (nil, "112"), (nil, "999"), (nil, "000")]
              as [(String?, String)])
    func allowed(region: String?, number: String) throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let country = region.map { ["--country", $0] } ?? []
        let base = ["lookup", "--index", try index(scratch), "--invalid", "block"] + country
        let text = try CLI.run(base + [number])
        #expect(text.stdout == "\(number)  unknown (not a number: emergency-number)\n")
        #expect(text.status == 1)
        let json = try CLI.run(base + ["--json", "(\(number))"])
        let answer = try #require(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(answer["action"] as? String == "allow" && answer["reason"] as? String == "emergency-number")
        #expect((answer["message"] as? String)?.contains("\(number) is an emergency number (") == true, "\(answer)")
        let stream = try CLI.run(base + ["-"], stdin: "\(number)\n5555\n")
        #expect(stream.stdout.hasPrefix("\(number)  unknown (not a number: emergency-number)\n5555  blocked (not a number: "), "\(stream.stdout)")
    }

    @Test("a short number that is no emergency number of the --country's regions still follows --invalid")
    func otherRegions() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = try index(scratch)
        let us = try CLI.run(["lookup", "--index", index, "--invalid", "block", "--country", "US", "000"])
        #expect(us.stdout.hasPrefix("000  blocked (not a number: "), "\(us.stdout)")
        let de = try CLI.run(["lookup", "--index", index, "--invalid", "block", "--country", "DE", "911", "+44 999"])
        let lines = de.stdout.split(separator: "\n")
        #expect(lines.count == 2 && lines[0].hasPrefix("911  blocked (not a number: "), "\(de.stdout)")
        #expect(lines.last == "+44 999  unknown (not a number: emergency-number)")
    }

    @Test("a compile refuses a row naming an emergency number and says why; --skip-invalid counts it")
    func compileRefuses() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let block = scratch.write("block.txt", "+12015550100\n911\n(112)\n")
        let refused = try CLI.run(["compile", "--country", "1", "--block", block, "-o", scratch.file("a.calldir")])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("'911' rejected: 911 is an emergency number (AG, AI, AS, BB, BM, BS, CA, DM and 15 more; libphonenumber 9.0.43)"), "\(refused.stderr)")
        #expect(refused.stderr.contains("emergency numbers are never blocked or labelled (emergency-number)"))
        #expect(refused.stderr.contains("2 emergency numbers: remove the rows (emergency numbers are never blocked or labelled), or --skip-invalid leaves them out"))
        #expect(!FileManager.default.fileExists(atPath: scratch.file("a.calldir")))

        let labels = scratch.write("id.csv", "+441632960001,Shop\n999,Police\n")
        let identify = try CLI.run(["compile", "--country", "GB", "--identify", labels, "-o", scratch.file("b.calldir")])
        #expect(identify.status == 1)
        #expect(identify.stderr.contains("'999' rejected: 999 is an emergency number (GB, GG, IM, JE;"), "\(identify.stderr)")

        let rejects = scratch.file("rejects.tsv")
        let skipped = try CLI.run(["compile", "--json", "--skip-invalid", "--country", "1", "--rejects", rejects,
                                   "--block", block, "-o", scratch.file("c.calldir")])
        #expect(skipped.status == 0, "\(skipped.stderr)")
        let summary = try #require(JSONSerialization.jsonObject(with: Data(skipped.stdout.utf8)) as? [String: Any])
        #expect(summary["rejected"] as? [String: Int] == ["emergency-number": 2])
        #expect(try String(contentsOfFile: rejects, encoding: .utf8).contains("emergency-number"))
    }

    /// Issue 44: South Africa's `10111` (police) and `10177` (ambulance) are possible numbers
    /// (+27 10111), and were stored and blocked; `1220` (CF) was under `--lenient`.
    @Test("an emergency number that is also a possible number is refused by compile and allowed by lookup, inside a blocked range")
    func possibleEmergencyNumbers() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let refused = try CLI.run(["compile", "--country", "ZA", "--block", scratch.write("za.txt", "+27 21 555 1234\n10111\n10177\n"),
                                   "-o", scratch.file("za.calldir")])
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("'10111' rejected: 10111 is an emergency number (ZA;"), "\(refused.stderr)")
        #expect(refused.stderr.contains("'10177' rejected: 10177 is an emergency number (ZA;"), "\(refused.stderr)")
        let lenient = try CLI.run(["compile", "--lenient", "--country", "CF", "--block", scratch.write("cf.txt", "1220\n"),
                                   "-o", scratch.file("cf.calldir")])
        #expect(lenient.status == 1 && lenient.stderr.contains("'1220' rejected: 1220 is an emergency number (CF;"), "\(lenient.stderr)")

        let index = scratch.file("range.calldir")
        let range = try CLI.run(["compile", "-q", "--lenient", "--block", scratch.write("r.txt", "+27 10000 - +27 10999\n"), "-o", index])
        #expect(range.status == 0, "\(range.stderr)")
        let lookup = try CLI.run(["lookup", "--index", index, "--country", "ZA", "--invalid", "block", "10111", "10177", "10112"])
        let lines = lookup.stdout.split(separator: "\n")
        #expect(lines.count == 3, "\(lookup.stdout)")
        #expect(lines.first == "10111  unknown (not a number: emergency-number)", "\(lookup.stdout)")
        #expect(lines.dropFirst().first == "10177  unknown (not a number: emergency-number)", "\(lookup.stdout)")
        #expect(lines.last?.hasPrefix("+2710112  blocked") == true, "\(lookup.stdout)")  // not an emergency number
    }

    /// Every shape libphonenumber's `is_emergency_number` reads as 911 or 112 (`#`, `*`, `;`,
    /// fullwidth, Arabic-Indic and Persian digits, a SIP URI): all were blocked by `--invalid block`.
    @Test("--invalid block allows an emergency number in every shape libphonenumber reads",
          arguments: ["112#", "*911", "911;", "911#", "\u{FF11}\u{FF11}\u{FF12}", "\u{FF19}\u{FF11}\u{FF11}", "\u{0661}\u{0661}\u{0662}",
                      "\u{06F1}\u{06F1}\u{06F2}", "sip:911@example.com", "Tel: 911"])
    func shapes(field: String) throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let lookup = try CLI.run(["lookup", "--index", try index(scratch), "--country", "US", "--invalid", "block", field])
        #expect(lookup.stdout == "\(field)  unknown (not a number: emergency-number)\n", "\(lookup.stdout)")
        let compile = try CLI.run(["compile", "--country", "US", "--block", scratch.write("b.txt", "+12015550100\n" + field + "\n"), "-o", scratch.file("s.calldir")])
        #expect(compile.stderr.contains("(emergency-number)"), "\(compile.stderr)")
    }
}
