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
}
