import Foundation
import Testing
import TestSupport

/// `calldir diff OLD NEW --report` (issue 27) on real lists before and after a churn: its
/// counts against `calldir simulate --from` (the French list, 15 million numbers a kind) and
/// against a brute-force comparison of the two indexes' expanded exports (the Swiss lists).
@Suite("calldir diff --report")
struct DiffReportCLITests {
    static func realList(_ name: String) -> String? { realDataPath(name) }

    static let french = realList("fr-arcep-operator-ranges.json")
    static let swissNumbers = realList("swiss-spam-numbers.txt")
    static let swissPatterns = realList("swiss-spam-patterns.txt")
    static let begone = realList("swiss-begone-list.plist")

    static func json(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not JSON: \(text)")
    }

    static func compile(_ arguments: [String]) throws {
        let result = try CLI.run(["compile", "-q", "--sort", "--dedupe", "--skip-invalid"] + arguments)
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// A kind's counts in the report.
    static func counts(_ report: [String: Any], _ kind: String) -> (added: Int, removed: Int, relabeled: Int) {
        let k = report[kind] as? [String: Any] ?? [:]
        return (k["added"] as? Int ?? -1, k["removed"] as? Int ?? -1, k["relabeled"] as? Int ?? -1)
    }

    /// `simulate --from OLD NEW --json`: removals and additions per kind.
    static func simulated(_ old: String, _ new: String) throws -> (removals: [String: Int], additions: [String: Int]) {
        let result = try CLI.run(["simulate", "--from", old, new, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try json(result.stdout)
        return (object["removals"] as? [String: Int] ?? [:], object["additions"] as? [String: Int] ?? [:])
    }

    static func expectSimulateAgrees(_ report: [String: Any], old: String, new: String) throws {
        let (removals, additions) = try simulated(old, new)
        for (kind, name) in [("blocking", "blocking"), ("identification", "identification")] {
            let c = counts(report, kind)
            #expect(removals[name] == c.removed + c.relabeled, "\(kind) removals: simulate \(removals), report \(c)")
            #expect(additions[name] == c.added + c.relabeled, "\(kind) additions: simulate \(additions), report \(c)")
        }
    }

    @Test("French list churned: the report's device changes per kind are simulate --from's; labels, ranges, budget; no delta written",
          .enabled(if: french != nil, "../shared/realdata is not present: skipped"))
    func frenchChurn() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let old = scratch.file("old.calldir"), new = scratch.file("new.calldir")
        try Self.compile(["--block", Self.french!, "--identify", Self.french!, "-o", old])

        // The churn: 5 operator blocks dropped, one operator renamed, one block cut short,
        // a few numbers and a range added, an allowlist cutting into a blocking range.
        var objects = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Self.french!))) as? [[String: Any]])
        objects.removeSubrange(40..<45)
        let renamed = try #require(objects.first { ($0["operator_name"] as? String) != "ARCEP" }?["operator_name"] as? String)
        for i in objects.indices where objects[i]["operator_name"] as? String == renamed { objects[i]["operator_name"] = renamed + " (renamed)" }
        let cut = 100
        let end = try #require(Int64(objects[cut]["end"] as? String ?? ""))
        objects[cut]["end"] = String(end - 500)
        objects[cut]["pattern"] = nil
        let churned = scratch.file("fr-churned.json")
        try JSONSerialization.data(withJSONObject: objects).write(to: URL(fileURLWithPath: churned))
        let extra = scratch.write("extra.txt", ["33500000001", "33500000002", "33700000000-33700009999"])
        let extraLabels = scratch.write("extra.csv", ["33500000001,New caller", "33162000005,Exact inside ARCEP"])
        let allow = scratch.write("allow.txt", ["33162000000-33162000999"])
        try Self.compile(["--block", churned, extra, "--allow", allow, "--identify", extraLabels, churned, "-o", new])

        let before = try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted()
        let result = try CLI.run(["diff", old, new, "--report", "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() == before, "--report without -o wrote a file")
        let report = try Self.json(result.stdout)
        try Self.expectSimulateAgrees(report, old: old, new: new)
        let blocking = Self.counts(report, "blocking"), identification = Self.counts(report, "identification")
        #expect(blocking.removed >= 1_000 + 500 && blocking.added >= 10_002 && blocking.relabeled == 0)
        #expect(identification.relabeled > 0 && identification.added >= 1)
        let labels = try #require(report["topLabelChanges"] as? [[String: Any]])
        let change = try #require(labels.first { $0["from"] as? String == renamed })
        #expect(change["to"] as? String == renamed + " (renamed)")
        #expect((change["examples"] as? [Int])?.isEmpty == false)
        #expect(labels.contains { $0["to"] as? String == "Exact inside ARCEP" && $0["numbers"] as? Int == 1 })
        let ranges = try #require(report["blockingRanges"] as? [String: Any])
        #expect((ranges["resized"] as? Int ?? 0) >= 1 && (ranges["added"] as? Int ?? 0) >= 1)
        let newEntries = try #require((report["new"] as? [String: Any])?["deviceEntries"] as? Int)

        // Budget: near (90% or more) is a warning, over is exit 1; the report is printed either way.
        let near = try CLI.run(["diff", old, new, "--report", "--format", "markdown", "--max-numbers", String(newEntries + 1)])
        #expect(near.status == 0 && near.stdout.contains("[!WARNING]") && near.stdout.contains("| blocking |"))
        let over = try CLI.run(["diff", old, new, "--report", "--max-numbers", String(newEntries - 1)])
        #expect(over.status == 1 && over.stdout.contains("over budget") && over.stderr.contains("--max-numbers"))
        let roomy = try CLI.run(["diff", old, new, "--report", "--max-numbers", String(newEntries * 2)])
        #expect(roomy.status == 0 && !roomy.stdout.contains("budget:"))

        // With -o the delta is written too, and the report is the same.
        let delta = scratch.file("d.delta")
        let both = try CLI.run(["diff", old, new, "-o", delta, "--report", "--format", "json"])
        #expect(both.status == 0 && FileManager.default.fileExists(atPath: delta))
        var a = try Self.json(both.stdout), b = report
        a["seconds"] = nil
        b["seconds"] = nil
        #expect(NSDictionary(dictionary: a) == NSDictionary(dictionary: b))
    }

    /// Every device entry of an index: number -> label ("" for blocking), from an expanded export.
    static func exported(_ index: String, kind: String) throws -> [Int64: String] {
        let format = kind == "block" ? "text" : "csv"
        let result = try CLI.run(["export", "--index", index, "--format", format, "--kind", kind, "--ranges", "expand"])
        #expect(result.status == 0, "\(result.stderr)")
        var entries: [Int64: String] = [:]
        for line in result.stdout.split(separator: "\n") where line.first?.isNumber == true {
            let parts = line.split(separator: kind == "block" ? "\t" : ",", maxSplits: 1).map(String.init)
            entries[Int64(parts[0])!] = parts.count > 1 ? parts[1] : ""
        }
        return entries
    }

    @Test("Swiss lists churned: the report's counts and label changes equal a brute-force comparison of the expanded exports",
          .enabled(if: swissNumbers != nil && swissPatterns != nil && begone != nil, "../shared/realdata is not present: skipped"))
    func swissBruteForce() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let old = scratch.file("old.calldir"), new = scratch.file("new.calldir")
        // Callers only OLD identifies: identification removals.
        let oldCallers = scratch.write("old-callers.csv", (0..<10).map { "+4177000\(1000 + $0),Gone caller" })
        try Self.compile(["--identify", oldCallers, Self.begone!, "--block", Self.swissNumbers!, Self.swissPatterns!, "-o", old])

        let numbers = try String(contentsOfFile: Self.swissNumbers!, encoding: .utf8).split(separator: "\n").map(String.init)
        let patterns = try String(contentsOfFile: Self.swissPatterns!, encoding: .utf8).split(separator: "\n").map(String.init)
        var generator = SeededGenerator(seed: 2027)
        let kept = numbers.enumerated().filter { $0.offset % 7 != 3 }.map(\.element)
        let added = (0..<50).map { _ in "+41790\(Int.random(in: 100_000...999_999, using: &generator))" }
        let blockNumbers = scratch.write("numbers.txt", kept + added)
        let blockPatterns = scratch.write("patterns.txt", Array(patterns.dropFirst(3)) + ["+4144000####"])
        let firstKept = patterns[3].replacingOccurrences(of: "+", with: "").replacingOccurrences(of: "#", with: "0")
        let allow = scratch.write("allow.txt", ["\(firstKept)-\(Int64(firstKept)! + 99)"])
        // Label changes: 30 numbers relabeled (this list first: --dedupe keeps the first row),
        // one exact number inside a range of another label, new callers.
        let relabeled = numbers.enumerated().filter { $0.offset % 50 == 1 }.map { "\($0.element),Scam (reported)" }
        let inside = patterns[10].replacingOccurrences(of: "+", with: "").replacingOccurrences(of: "#", with: "5")
        let newCallers = (0..<20).map { _ in "+41780\(Int.random(in: 100_000...999_999, using: &generator)),Caller \(Int.random(in: 1...3, using: &generator))" }
        let labels = scratch.write("labels.csv", ["number,label"] + relabeled + ["\(inside),Exact inside"] + newCallers)
        try Self.compile(["--identify", labels, Self.begone!, "--block", blockNumbers, blockPatterns, "--allow", allow, "-o", new])

        let result = try CLI.run(["diff", old, new, "--report", "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try Self.json(result.stdout)
        try Self.expectSimulateAgrees(report, old: old, new: new)

        var expectedPairs: [String: Int] = [:]
        for (kind, name) in [("block", "blocking"), ("identify", "identification")] {
            let a = try Self.exported(old, kind: kind), b = try Self.exported(new, kind: kind)
            let addedCount = b.keys.filter { a[$0] == nil }.count
            let removedCount = a.keys.filter { b[$0] == nil }.count
            let changed = b.filter { a[$0.key] != nil && a[$0.key] != $0.value }
            let c = Self.counts(report, name)
            #expect(c.added == addedCount && c.removed == removedCount && c.relabeled == changed.count,
                    "\(name): report \(c), brute force +\(addedCount) -\(removedCount) ~\(changed.count)")
            #expect(addedCount > 0 && removedCount > 0)
            if kind == "identify" {
                #expect(changed.count > 30)
                for (number, label) in changed { expectedPairs[a[number]! + "\u{0}" + label, default: 0] += 1 }
            }
        }
        let top = try #require(report["topLabelChanges"] as? [[String: Any]])
        let reported = Dictionary(uniqueKeysWithValues: top.map { (($0["from"] as! String) + "\u{0}" + ($0["to"] as! String), $0["numbers"] as! Int) })
        #expect(reported == expectedPairs, "top label changes \(reported), brute force \(expectedPairs)")
        #expect(report["distinctLabelChanges"] as? Int == expectedPairs.count && report["labelChangesApproximate"] as? Bool == false)
    }

    @Test("added identification numbers are listed with their labels; 10,013 entries of 10,010 read as over 100%")
    func labelsAndBudget() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let numbers = (0..<10_010).map { "+1201\(5_550_000 + $0)" }
        let oldBlock = scratch.write("old.txt", numbers.prefix(10_000).joined(separator: "\n") + "\n")
        let newBlock = scratch.write("new.txt", numbers.joined(separator: "\n") + "\n")
        let labels = scratch.write("id.csv", "+14155550001,Spam risk\n+14155550002,\"Acme, Inc\"\n+14155550003,Pharmacy\n")
        try Self.compile(["--block", oldBlock, "-o", scratch.file("old.calldir")])
        try Self.compile(["--block", newBlock, "--identify", labels, "-o", scratch.file("new.calldir")])
        let diff = ["diff", scratch.file("old.calldir"), scratch.file("new.calldir"), "--report", "--max-numbers", "10010"]
        let text = try CLI.run(diff)
        #expect(text.status == 1, "\(text.stderr)")
        #expect(text.stdout.contains(#"first identification added: 14155550001 "Spam risk", 14155550002 "Acme, Inc", 14155550003 "Pharmacy""#), "\(text.stdout)")
        #expect(text.stdout.contains("device entries: 10,000 -> 10,013 (+13), 100.03% of --max-numbers 10,010 (3 over)"), "\(text.stdout)")
        #expect(text.stdout.contains("over budget"))
        let near = try CLI.run(["diff", scratch.file("old.calldir"), scratch.file("new.calldir"), "--report", "--max-numbers", "10014"])
        #expect(near.stdout.contains("99.99% of --max-numbers 10,014\n"), "\(near.stdout)")
        let markdown = try CLI.run(diff + ["--format", "markdown"])
        #expect(markdown.stdout.contains("- first identification added: `14155550001` `Spam risk`"), "\(markdown.stdout)")
        let json = try Self.json(try CLI.run(diff + ["--format", "json"]).stdout)
        let added = (json["identification"] as? [String: Any])?["addedExamples"] as? [[String: Any]] ?? []
        #expect(added.map { $0["label"] as? String } == ["Spam risk", "Acme, Inc", "Pharmacy"])
        #expect(added.first?["first"] as? Int == 14_155_550_001)
    }

    @Test("usage: diff needs -o or --report; --json and --report do not share stdout")
    func usage() throws {
        #expect(try CLI.run(["diff", "a.calldir", "b.calldir"]).status == 64)
        #expect(try CLI.run(["diff", "a.calldir", "b.calldir", "--report", "--json"]).status == 64)
        #expect(try CLI.run(["diff", "a.calldir", "b.calldir", "-o", "d.delta", "--max-numbers", "5"]).status == 64)
    }
}
