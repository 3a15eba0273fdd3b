import Foundation
import Testing
import TestSupport

/// README's "Real lists" table is checked against what calldir does today: each row's command
/// is run on the real list, and its result cell must read exactly as the compile's JSON
/// summary says (`resultCell`), and every one of --sort, --dedupe and --skip-invalid that a
/// row shows must be needed (the list fails without it). On a mismatch the test prints the
/// table as it should read. Skipped, saying so, where ../shared/realdata is absent.
@Suite("README's real-list table")
struct ReadmeRealListTests {
    struct Row {
        var list: String
        var command: [String]
        var result: String
    }

    static let readme = (try? String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""
    static let realData = realDataPath("SOURCES.md").map { URL(fileURLWithPath: $0).deletingLastPathComponent().path }

    /// The table's rows: `| list | `calldir compile ...` | result |`.
    static var rows: [Row] {
        let section = readme.components(separatedBy: "### Real lists").dropFirst().first ?? ""
        return section.split(separator: "\n").prefix { !$0.hasPrefix("###") }.compactMap { line -> Row? in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 5, cells[2].hasPrefix("`calldir ") else { return nil }
            let command = cells[2].trimmingCharacters(in: CharacterSet(charactersIn: "`")).split(separator: " ").map(String.init)
            return Row(list: cells[1], command: Array(command.dropFirst()), result: cells[3])
        }
    }

    /// What a row's result cell says, from the compile's --json summary: one vocabulary.
    static func resultCell(_ summary: [String: Any]) -> String {
        func int(_ key: String) -> Int { (summary[key] as? NSNumber)?.intValue ?? 0 }
        let numbers = int("blockedNumbers") + int("identifiedNumbers")
        let ranges = int("blockedRanges") + int("identifiedRanges")
        var cell = "\(count(numbers, "number")), \(count(ranges, "range")) (\(count(int("deviceEntries"), "device entry", "device entries"))), "
            + "\(count(int("bytes"), "byte"))"
        if int("labels") > 0 { cell += ", \(count(int("labels"), "label"))" }
        let rejected = (summary["rejected"] as? [String: Any] ?? [:]).map { ($0.key, ($0.value as? NSNumber)?.intValue ?? 0) }
        if !rejected.isEmpty {
            let reasons = rejected.sorted { ($1.1, $0.0) < ($0.1, $1.0) }.map { "\($0.0) \(grouped($0.1))" }.joined(separator: ", ")
            cell += "; left out \(count(int("rejectedTotal"), "row")): \(reasons)"
        }
        return cell
    }

    static func grouped(_ n: Int) -> String {
        let digits = String(n)
        return digits.enumerated().map { i, c in (i > 0 && (digits.count - i) % 3 == 0 ? "," : "") + String(c) }.joined()
    }

    static func count(_ n: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(grouped(n)) \(n == 1 ? singular : plural ?? singular + "s")"
    }

    /// Runs a row's command with the list files found in ../shared/realdata.
    static func compile(_ arguments: [String], into folder: TempFolder, in realData: String) throws -> CLI.Result {
        let resolved = arguments.map { FileManager.default.fileExists(atPath: realData + "/" + $0) ? realData + "/" + $0 : $0 }
        return try CLI.run(resolved + ["--json", "-q", "-o", folder.file("readme.calldir")])
    }

    @Test("every row's result cell says what its command does today; every flag it shows is needed",
          .enabled(if: realData != nil, "../shared/realdata is not present: skipped"))
    func table() throws {
        let realData = try #require(Self.realData)
        let rows = Self.rows
        #expect(rows.count >= 4, "README's Real lists table not found")
        let folder = TempFolder()
        defer { folder.remove() }
        var expected: [String] = []
        for row in rows {
            let run = try Self.compile(row.command, into: folder, in: realData)
            #expect(run.status == 0, "\(row.command): \(run.stderr)")
            let summary = try #require(JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            let cell = Self.resultCell(summary)
            #expect(row.result == cell, "README row '\(row.list)'")
            expected.append("| \(row.list) | `calldir \(row.command.joined(separator: " "))` | \(cell) |")
            for flag in ["--sort", "--dedupe", "--skip-invalid"] where row.command.contains(flag) {
                let without = try Self.compile(row.command.filter { $0 != flag }, into: folder, in: realData)
                #expect(without.status != 0, "README row '\(row.list)' shows \(flag), but the list compiles without it")
            }
        }
        if expected.count == rows.count, zip(rows, expected).contains(where: { "| \($0.list) | `calldir \($0.command.joined(separator: " "))` | \($0.result) |" != $1 }) {
            print("README's Real lists table should read:\n" + expected.joined(separator: "\n"))
        }
    }
}
