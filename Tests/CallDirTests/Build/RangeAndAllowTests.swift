import Foundation
import Testing
@testable import CallDir
@testable import CallDirReader
import CompileSupport
import TestSupport

@Suite("Ranges and allowlists")
struct RangeAndAllowTests {
    @Test("overlapping block ranges merge; --allow removes numbers and splits ranges")
    func allowSplitsRanges() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let block = folder.write("b.txt", "33162000000-33162000999\n331620005##\n3316200####\n14085555555\n14085555556\n")
        let allow = folder.write("allow.txt", "14085555556\n33162000500-33162000509\n33162000777\n")
        var options = CompileOptions(output: folder.file("i.calldir"))
        options.blockSources = [.file(block)]
        options.allowSources = [.file(allow)]
        options.sort = true
        var diagnostics: [Diagnostic] = []
        let summary = try compile(options, diagnostics: &diagnostics)
        #expect(summary.allowedNumbersRemoved == 1 && summary.allowedRangeNumbersRemoved == 11)
        #expect(summary.blockedRangeNumbers == 10_000 - 11)
        let index = try CallDirIndex(path: folder.file("i.calldir"), verify: true)
        #expect(index.blockedRangeList == [
            NumberRange(first: 33_162_000_000, last: 33_162_000_499),
            NumberRange(first: 33_162_000_510, last: 33_162_000_776),
            NumberRange(first: 33_162_000_778, last: 33_162_009_999),
        ])
        #expect(try index.lookup(14_085_555_556).blocked == nil)
        #expect(try index.lookup(14_085_555_555).blocked == .exact)
        #expect(try index.lookup(33_162_000_505).blocked == nil)
        #expect(try index.lookup(33_162_000_510).blocked == .range)
        #expect(summary.rowsRead == summary.entries + summary.rangeRows + summary.allowRows + summary.rejectedTotal)
    }

    @Test("identification ranges: the narrower range wins, an exact entry wins over both")
    func narrowerWins() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let identify = folder.write("i.csv", """
        3316#######,Wide
        331620#####,Narrow
        33162000000-33162000099,Narrowest
        33162000050,Exact
        """)
        let summary = try compile(identify: [identify], output: folder.file("i.calldir")) { $0.sort = true }
        #expect(summary.identifiedNumbers == 1 && summary.rangeRows == 3)
        #expect(summary.identifiedRangeNumbers == 10_000_000)
        let index = try CallDirIndex(path: folder.file("i.calldir"), verify: true)
        func label(_ n: Int64) throws -> (String?, LookupResult.Match?) {
            let r = try index.lookup(n)
            return (r.label, r.labelMatch)
        }
        #expect(try label(33_162_000_050) == ("Exact", .exact))
        #expect(try label(33_162_000_051) == ("Narrowest", .range))
        #expect(try label(33_162_000_100) == ("Narrow", .range))
        #expect(try label(33_163_000_000) == ("Wide", .range))
        #expect(try label(33_170_000_000) == (nil, nil))
        // A device loads every covered number once: 10M range numbers (the exact one is inside).
        #expect(summary.deviceEntries == 10_000_000)
    }

    @Test("--max-numbers counts ranges by size and refuses to publish over budget")
    func deviceBudget() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let block = folder.write("b.txt", "14085555555\n1900555####\n")
        #expect(try compile(block: [block], output: folder.file("ok.calldir")) { $0.maxNumbers = 10_001 }.deviceEntries == 10_001)
        do {
            try compile(block: [block], output: folder.file("over.calldir")) { $0.maxNumbers = 10_000 }
            Issue.record("over-budget list was published")
        } catch let error as CallDirError {
            #expect(error.code == .limitExceeded && error.message.contains("10,001"))
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("over.calldir")))
    }

    @Test("--skip-invalid counts rejects by reason; strict mode fails on the first")
    func skipInvalid() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let block = folder.write("b.txt", "+1 (800) 555-5555\nhello\n12\n1-877-555-5555\n")
        let rejects = folder.file("rejects.tsv")
        let summary = try compile(block: [block], output: folder.file("i.calldir")) {
            $0.skipInvalid = true
            $0.rejectsPath = rejects
        }
        #expect(summary.blockedNumbers == 2)
        #expect(summary.rejected == ["invalid-character": 1, "too-short": 1])
        let listed = try String(contentsOfFile: rejects, encoding: .utf8)
        #expect(listed.contains("\(block):2\tinvalid-character\thello\n"))
        #expect(listed.contains("\(block):3\ttoo-short\t12\n"))
    }
}
