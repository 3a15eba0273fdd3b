import CSQLite
import Foundation
import Testing
@testable import CallDir
@testable import CallDirReader
import CompileSupport
import TestSupport

/// Issue acceptance on the real public lists in ../shared/realdata (skipped, visibly, when a
/// checkout has none).
enum RealLists {
    static let ftc = realDataPath("ftc-dnc-complaints-90days.csv")
    static let swissNumbers = realDataPath("swiss-spam-numbers.txt")
    static let swissPatterns = realDataPath("swiss-spam-patterns.txt")
    static let begone = realDataPath("swiss-begone-list.plist")
    static let french = realDataPath("fr-arcep-operator-ranges.json")
}

@Suite("Real lists")
struct RealListTests {

    @Test("FTC complaints: every valid row is in the index, and every other row is counted by reason",
          .enabled(if: RealLists.ftc != nil, "../shared/realdata is not present: skipped"))
    func ftcComplaints() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let output = folder.file("ftc.calldir")
        let summary = try compile(block: [RealLists.ftc!], output: output) {
            $0.country = 1
            $0.sort = true
            $0.dedupe = true
            $0.skipInvalid = true
            $0.memoryBudget = 1 << 20  // force spilled runs on real data
        }
        let rows = try String(contentsOfFile: RealLists.ftc!, encoding: .utf8).split(separator: "\r\n").dropFirst()
        #expect(summary.rowsRead == rows.count)
        #expect(summary.rowsRead == summary.blockedNumbers + summary.rejectedTotal)
        #expect(summary.duplicates == summary.rejected["duplicate"])
        #expect(summary.sortRuns > 1)
        let index = try CallDirIndex(path: output, verify: true)
        let normalizer = try NumberNormalizer(country: 1)
        var valid = Set<Int64>()
        for row in rows {
            guard case .success(.number(let n)) = normalizer.normalize(String(row)) else { continue }
            valid.insert(n)
            if valid.count % 97 == 0 { #expect(try index.lookup(n).blocked == .exact, "\(row)") }
        }
        #expect(valid.count == summary.blockedNumbers)
        var stored = 0
        var allValid = true
        try index.forEachBlockedNumber { stored += 1; allValid = allValid && valid.contains($0) }
        #expect(stored == valid.count && allValid)
    }

    @Test("Swiss numbers and '#' patterns: inside each pattern blocked, neighbours outside not",
          .enabled(if: RealLists.swissNumbers != nil && RealLists.swissPatterns != nil, "../shared/realdata is not present: skipped"))
    func swissPatterns() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let output = folder.file("ch.calldir")
        let summary = try compile(block: [RealLists.swissNumbers!, RealLists.swissPatterns!], output: output) { $0.sort = true }
        #expect(summary.blockedNumbers == 1_690 && summary.rangeRows == 56)
        let index = try CallDirIndex(path: output)
        let ranges = index.blockedRangeList
        #expect(summary.blockedRangeNumbers == ranges.reduce(0) { $0 + $1.count })
        let normalizer = try NumberNormalizer()
        for line in try String(contentsOfFile: RealLists.swissPatterns!, encoding: .utf8).split(separator: "\n") {
            guard case .success(.range(let r)) = normalizer.normalize(String(line)) else {
                Issue.record("pattern \(line) did not normalise")
                continue
            }
            for n in [r.first, r.first + r.count / 2, r.last] {
                #expect(try index.lookup(n).blocked != nil, "\(n) in \(line)")
            }
            for n in [r.first - 1, r.last + 1] where !ranges.contains(where: { $0.contains(n) }) {
                #expect(try index.lookup(n).blocked != .range, "\(n) next to \(line)")
            }
        }
    }

    @Test("Begone plist: patterns and numbers identified with their titles",
          .enabled(if: RealLists.begone != nil, "../shared/realdata is not present: skipped"))
    func begonePlist() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let output = folder.file("begone.calldir")
        let summary = try compile(identify: [RealLists.begone!], output: output) { $0.sort = true; $0.dedupe = true }
        #expect(summary.identifiedRanges > 0 && summary.identifiedNumbers > 1_000)
        let index = try CallDirIndex(path: output, verify: true)
        let hit = try index.lookup(41_215_601_234)
        #expect(hit.label == "Spam (local.ch++)" && hit.labelMatch == .range)
        #expect(try index.lookup(41_215_610_000).labelMatch != .range)
    }

    @Test("French operator ranges: 15 million numbers stored as ranges in a small file",
          .enabled(if: RealLists.french != nil, "../shared/realdata is not present: skipped"))
    func frenchRanges() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let output = folder.file("fr.calldir")
        let summary = try compile(block: [RealLists.french!], output: output) { $0.skipInvalid = true }
        // 804 rows; "3950" is a 4-digit French short code, not an E.164 number.
        #expect(summary.rangeRows == 803 && summary.rejected == ["too-short": 1])
        #expect(summary.blockedRangeNumbers == 14_951_000)
        #expect(summary.fileBytes < 20_000)
        let index = try CallDirIndex(path: output)
        #expect(try index.lookup(33_162_123_456).blocked == .range)
        #expect(try index.lookup(33_161_999_999).blocked == nil)
        // The device budget guard: 15 million entries would not fit a 1 million budget.
        #expect(throws: CallDirError.self) {
            try compile(block: [RealLists.french!], output: folder.file("guard.calldir")) {
                $0.skipInvalid = true
                $0.maxNumbers = 1_000_000
            }
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("guard.calldir")))
    }

    @Test("the same list as text, gzip and SQLite compiles to byte-identical indexes",
          .enabled(if: RealLists.swissNumbers != nil, "../shared/realdata is not present: skipped"))
    func sameListThreeWays() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let text = folder.file("numbers.txt")
        try FileManager.default.copyItem(atPath: RealLists.swissNumbers!, toPath: text)
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
        gzip.arguments = ["-k", text]
        try gzip.run()
        gzip.waitUntilExit()
        let database = folder.file("numbers.sqlite")
        try makeDatabase(database, numbers: String(contentsOfFile: text, encoding: .utf8).split(separator: "\n").map(String.init))
        func build(_ source: SourceSpec, _ name: String) throws -> [UInt8] {
            var options = CompileOptions(output: folder.file(name))
            options.blockSources = [source]
            options.sort = true
            var diagnostics: [Diagnostic] = []
            try compile(options, diagnostics: &diagnostics)
            return fileBytes(folder.file(name))
        }
        let fromText = try build(.file(text), "text.calldir")
        #expect(try build(.file(text + ".gz"), "gzip.calldir") == fromText)
        #expect(try build(.sqlite("\(database):SELECT number FROM blocked ORDER BY rowid DESC"), "sql.calldir") == fromText)
    }

    private func makeDatabase(_ path: String, numbers: [String]) throws {
        var db: OpaquePointer?
        #expect(sqlite3_open(path, &db) == SQLITE_OK)
        defer { sqlite3_close(db) }
        #expect(sqlite3_exec(db, "CREATE TABLE blocked (number TEXT NOT NULL)", nil, nil, nil) == SQLITE_OK)
        let values = numbers.map { "('\($0)')" }.joined(separator: ",")
        #expect(sqlite3_exec(db, "INSERT INTO blocked (number) VALUES \(values)", nil, nil, nil) == SQLITE_OK)
    }
}
