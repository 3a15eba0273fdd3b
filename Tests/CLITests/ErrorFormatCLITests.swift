import CallDir
import Foundation
import Testing

/// `compile --error-format github|gitlab|json` and the problem matcher (issue 27), on the real
/// lists in ../shared/realdata with injected bad rows, in a folder whose name needs escaping.
@Suite("calldir compile --error-format")
struct ErrorFormatCLITests {
    static func realList(_ name: String) -> String? { realDataPath(name) }

    static let swiss = realList("swiss-spam-numbers.txt")
    static let french = realList("fr-arcep-operator-ranges.json")

    /// What the Actions runner does to a property value or a message (actions/runner's
    /// ActionCommand: %0D, %0A, %3A, %2C, then %25).
    static func unescape(_ text: String, property: Bool) -> String {
        var s = text.replacingOccurrences(of: "%0D", with: "\r").replacingOccurrences(of: "%0A", with: "\n")
        if property { s = s.replacingOccurrences(of: "%3A", with: ":").replacingOccurrences(of: "%2C", with: ",") }
        return s.replacingOccurrences(of: "%25", with: "%")
    }

    /// A parsed `::error k=v,...::message` line.
    static func parse(_ line: String) -> (properties: [String: String], message: String)? {
        guard line.hasPrefix("::error") else { return nil }
        let rest = line.dropFirst("::error".count)
        guard let end = rest.range(of: "::") else { return nil }
        var properties: [String: String] = [:]
        for pair in rest[..<end.lowerBound].trimmingCharacters(in: .whitespaces).split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            properties[parts[0]] = unescape(parts[1], property: true)
        }
        return (properties, unescape(String(rest[end.upperBound...]), property: false))
    }

    @Test("escaping follows GitHub's workflow-command rules: % \\r \\n in data, and : , in properties")
    func escaping() {
        #expect(GitHubAnnotation.escapeData("100% a\r\nb: c, d") == "100%25 a%0D%0Ab: c, d")
        #expect(GitHubAnnotation.escapeProperty("100% a\r\nb: c, d") == "100%25 a%0D%0Ab%3A c%2C d")
        // % first: an escape sequence already in the text stays literal after unescaping.
        #expect(GitHubAnnotation.escapeData("%0A") == "%250A")
        #expect(Self.unescape(GitHubAnnotation.escapeProperty("%3A:%2C,"), property: true) == "%3A:%2C,")
        let line = GitHubAnnotation.error(file: "lists/a:b,c.txt", line: 7, title: "calldir: x", message: "m\n2")
        #expect(line == "::error file=lists/a%3Ab%2Cc.txt,line=7,title=calldir%3A x::m%0A2")
    }

    /// The real Swiss list in a folder named with ':' ',' and '%', with bad rows at known lines.
    static func injectedSwiss(_ scratch: TempFolder) throws -> (path: String, bad: [Int: String]) {
        let folder = scratch.file("lists: 100%, CH")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var lines = try String(contentsOfFile: swiss!, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        var bad: [Int: String] = [:]
        for (offset, row) in [(10, "12%34"), (200, "4179\r1234567"), (1000, "+41 21 abc")] {
            lines.insert(row, at: offset)
        }
        for (offset, row) in [(10, "12%34"), (200, "4179\r1234567"), (1000, "+41 21 abc")] { bad[offset + 1] = row }
        let path = folder + "/spam, new: list.txt"
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        return (path, bad)
    }

    /// A rejected row as messages show it: control characters as U+FFFD, never echoed.
    static func shown(_ row: String) -> String {
        String(String.UnicodeScalarView(row.unicodeScalars.map { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) ? "\u{FFFD}" : $0 }))
    }

    @Test("github: one annotation per injected row of the real Swiss list, escaped, at its file and line",
          .enabled(if: swiss != nil, "../shared/realdata is not present: skipped"))
    func githubAnnotations() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let (path, bad) = try Self.injectedSwiss(scratch)
        let result = try CLI.run(["compile", "--check", "--sort", "--dedupe", "--error-format", "github", "--block", path])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(!result.stderr.contains("\r"))
        let annotations = result.stderr.split(separator: "\n").compactMap { Self.parse(String($0)) }
        #expect(annotations.count == bad.count, "\(result.stderr)")
        let raw = result.stderr.split(separator: "\n").filter { $0.hasPrefix("::error") }
        #expect(raw.allSatisfy { $0.contains("%3A") && $0.contains("%2C") && $0.contains("%25") })
        for annotation in annotations {
            let line = try #require(Int(annotation.properties["line"] ?? ""))
            #expect(annotation.properties["file"] == path)
            let row = try #require(bad[line], "annotation at line \(line), not an injected row")
            #expect(annotation.message.hasPrefix("'\(Self.shown(row))' rejected: "), "\(annotation.message)")
            #expect(annotation.properties["title"]?.hasPrefix("calldir: ") == true)
        }
    }

    @Test("github: order and repeat annotations show the row as written and the flag that fixes it")
    func githubOrderAndRepeats() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let path = scratch.write("us.txt", "+1 (877) 555-5555\n+1 (800) 555-5555\n+1 877 555 5556\n+1-877-555-5556\n18775555557\n18775555557\n")
        let result = try CLI.run(["compile", "--check", "--error-format", "github", "--block", path])
        #expect(result.status == 1, "\(result.stderr)")
        let annotations = result.stderr.split(separator: "\n").map(String.init).compactMap(Self.parse)
        #expect(annotations.map(\.message) == [
            "'+1 (800) 555-5555' (18005555555) is not above 18775555555 (line 1): entries out of order (CallKit error 3); --sort accepts any order",
            "'+1-877-555-5556' (18775555556) repeats line 3: duplicate entries (CallKit error 4); --dedupe keeps one of each",
            "18775555557 repeats line 5: duplicate entries (CallKit error 4); --dedupe keeps one of each",
        ], "\(result.stderr)")
        #expect(annotations.map { $0.properties["line"] } == ["2", "4", "6"])
    }

    /// Issue 39 item 7: the fast plain-number path and the sort keep no row text, so the report
    /// reads the row again from its file (before, `2015550099` under --country 1 was shown as
    /// 12015550099, as if the list had written it so).
    @Test("github and json: plain digits read with --country 1, and rows met again after --sort, show the row as written")
    func plainDigitsAsWritten() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let path = scratch.write("us.txt", "2015550100\n2015550099\n2015550101\n12015550101\n")
        let github = try CLI.run(["compile", "--check", "--country", "1", "--error-format", "github", "--block", path])
        #expect(github.status == 1, "\(github.stderr)")
        #expect(github.stderr.split(separator: "\n").map(String.init).compactMap(Self.parse).map(\.message) == [
            "'2015550099' (12015550099) is not above 12015550100 (line 1): entries out of order (CallKit error 3); --sort accepts any order",
            "12015550101 repeats line 3: duplicate entries (CallKit error 4); --dedupe keeps one of each",
        ], "\(github.stderr)")
        let json = try CLI.run(["compile", "--check", "--country", "1", "--error-format", "json", "--block", path])
        let messages = json.stderr.split(separator: "\n").filter { $0.hasPrefix("{") }.compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["message"] as? String
        }
        #expect(messages.first?.hasPrefix("'2015550099' (12015550099) is not above") == true, "\(json.stderr)")

        let sorted = scratch.write("sorted.txt", "(201) 555-0102\n2015550100\n+1 201 555 0102\n")
        let repeats = try CLI.run(["compile", "--check", "--country", "1", "--sort", "--error-format", "github", "--block", sorted])
        #expect(repeats.status == 1, "\(repeats.stderr)")
        #expect(repeats.stderr.split(separator: "\n").map(String.init).compactMap(Self.parse).map(\.message) == [
            "'+1 201 555 0102' (12015550102) repeats line 1: duplicate entries (CallKit error 4); --dedupe keeps one of each",
        ], "\(repeats.stderr)")
    }

    @Test("github: past 9 problems, a 10th annotation sums up and every problem stays in the log",
          .enabled(if: french != nil, "../shared/realdata is not present: skipped"))
    func githubCap() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        // The real French list with 15 bad objects (and its own bad "3950" row) before its end.
        var text = try String(contentsOfFile: Self.french!, encoding: .utf8)
        let close = try #require(text.range(of: "]", options: .backwards))
        var injected = ""
        for i in 0..<15 { injected += ",\n    {\n        \"operator_name\": \"Bad, %\(i)\",\n        \"pattern\": \"33\\n1\(i)\"\n    }" }
        text.replaceSubrange(close.lowerBound..<close.lowerBound, with: injected + "\n")
        text = text.replacingOccurrences(of: "}\n,\n", with: "},\n")
        let path = scratch.write("fr: ops, 2026.json", text)
        let result = try CLI.run(["compile", "--check", "--error-format", "github", "--block", path])
        #expect(result.status == 1, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        let annotations = lines.compactMap(Self.parse)
        #expect(annotations.count == GitHubAnnotation.limit, "\(result.stderr)")
        #expect(annotations.prefix(9).allSatisfy { $0.properties["file"] == path && $0.properties["line"] != nil })
        #expect(annotations[0].message.contains("'3950' rejected"))
        #expect(annotations[1].message.contains("'33\u{FFFD}10' rejected"), "a newline in the row is shown as U+FFFD, never as a new line")
        let summary = annotations[9]
        #expect(summary.properties["file"] == nil && summary.message.hasPrefix("7 more problems are not annotated"))
        // The 7 past the cap are in the log as FILE:LINE: reason.
        #expect(lines.filter { $0.hasPrefix(path + ":") }.count == 7)
    }

    @Test("gitlab: a code quality report published in --error-file, failure or success; json: one object a line",
          .enabled(if: swiss != nil, "../shared/realdata is not present: skipped"))
    func gitlabAndJSON() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let (path, bad) = try Self.injectedSwiss(scratch)
        let report = scratch.file("gl-code-quality-report.json")
        let failed = try CLI.run(["compile", "--check", "--sort", "--dedupe", "--error-format", "gitlab", "--error-file", report, "--block", path])
        #expect(failed.status == 1)
        #expect(failed.stderr.contains(path + ":11: '12%34' rejected"))
        let entries = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [[String: Any]])
        #expect(entries.count == bad.count)
        for entry in entries {
            let location = try #require(entry["location"] as? [String: Any])
            let begin = try #require((location["lines"] as? [String: Any])?["begin"] as? Int)
            #expect(location["path"] as? String == path && bad[begin] != nil)
            #expect((entry["description"] as? String)?.hasPrefix("'\(Self.shown(bad[begin]!))' rejected") == true)
            #expect(entry["severity"] as? String == "major" && (entry["check_name"] as? String)?.isEmpty == false)
            #expect((entry["fingerprint"] as? String)?.count == 32)
        }
        #expect(Set(entries.compactMap { $0["fingerprint"] as? String }).count == entries.count)

        let good = try CLI.run(["compile", "--check", "--sort", "--dedupe", "--error-format", "gitlab", "--error-file", report,
                                "--block", Self.swiss!])
        #expect(good.status == 0, "\(good.stderr)")
        #expect(try String(contentsOfFile: report, encoding: .utf8) == "[]\n")

        let json = try CLI.run(["compile", "--check", "--sort", "--dedupe", "--error-format", "json", "--block", path])
        #expect(json.status == 1)
        // stderr carries JSON only: a line per problem, then the failure's own line.
        let lines = json.stderr.split(separator: "\n")
        var objects = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.count == lines.count, "a line that is not JSON: \(json.stderr)")
        #expect(objects.last?["error"] is String)
        objects.removeLast()
        #expect(objects.count == bad.count)
        #expect(objects.allSatisfy { ($0["file"] as? String) == path && bad[$0["line"] as? Int ?? 0] != nil && $0["rule"] is String })
    }

    @Test("the problem matcher in .github reads every default-format problem and nothing else",
          .enabled(if: swiss != nil, "../shared/realdata is not present: skipped"))
    func problemMatcher() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let (path, bad) = try Self.injectedSwiss(scratch)
        let matcherFile = CLI.packageRoot.appendingPathComponent(".github/calldir-problem-matcher.json")
        let matcher = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: matcherFile)) as? [String: Any])
        let pattern = try #require(((matcher["problemMatcher"] as? [[String: Any]])?.first?["pattern"] as? [[String: Any]])?.first)
        let regex = try NSRegularExpression(pattern: try #require(pattern["regexp"] as? String))
        let result = try CLI.run(["compile", "--check", "--sort", "--dedupe", "--block", path])
        #expect(result.status == 1)
        var matched: [Int: String] = [:]
        for line in result.stderr.split(separator: "\n").map(String.init) {
            let ns = line as NSString
            guard let m = regex.firstMatch(in: line, range: NSRange(location: 0, length: ns.length)) else { continue }
            let file = ns.substring(with: m.range(at: pattern["file"] as! Int))
            let number = Int(ns.substring(with: m.range(at: pattern["line"] as! Int)))!
            #expect(file == path, "matched \(line)")
            matched[number] = ns.substring(with: m.range(at: pattern["message"] as! Int))
        }
        #expect(Set(matched.keys) == Set(bad.keys), "\(result.stderr)")
        #expect(result.stderr.contains("calldir: error: "))  // present, and not matched as a problem
    }

    @Test("--error-file needs gitlab or json, and gitlab needs --error-file (usage errors, 64)")
    func usage() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let list = scratch.write("l.txt", ["15552000001"])
        #expect(try CLI.run(["compile", "--check", "--error-format", "gitlab", "--block", list]).status == 64)
        #expect(try CLI.run(["compile", "--check", "--error-format", "github", "--error-file", scratch.file("x"), "--block", list]).status == 64)
        #expect(try CLI.run(["compile", "--check", "--error-format", "sarif", "--block", list]).status == 64)
    }
}
