import Foundation
import Testing
@testable import CallDir

/// The real lists in `../shared/realdata` (see its SOURCES.md). Skipped, visibly, when absent.
@Suite("Input: real lists")
struct InputRealDataTests {
    static let ftc = "ftc-dnc-complaints-90days.csv"
    static let begone = "swiss-begone-list.plist"
    static let arcep = "fr-arcep-operator-ranges.json"
    static let swissNumbers = "swiss-spam-numbers.txt"
    static let swissPatterns = "swiss-spam-patterns.txt"

    @Test(.enabled(if: RealData.exists(ftc), "needs ../shared/realdata/\(ftc)"))
    func ftcCSVYieldsEveryDataRow() throws {
        let path = RealData.path(Self.ftc)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let fileLines = data.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        #expect(fileLines == 337_811)
        let source = try openSource(path: path)
        #expect(source is TextListSource)
        let rows = try collectRows(source)
        #expect(rows.count == fileLines - 1)  // minus the header `pattern`
        #expect(rows.first == CollectedRow(2, "4692576503"))
        #expect(rows.last == CollectedRow(337_811, "6146543307"))
        #expect(rows.allSatisfy { $0.label == nil && !$0.number.contains("\r") && !$0.number.isEmpty })
    }

    @Test(.enabled(if: RealData.exists(ftc), "needs ../shared/realdata/\(ftc)"))
    func ftcCSVGzippedReadsTheSame() throws {
        try withTempDir { dir in
            try FileManager.default.copyItem(atPath: RealData.path(Self.ftc), toPath: dir.path("ftc.csv"))
            let plain = try collectRows(try openSource(path: dir.path("ftc.csv")))
            let zipped = try collectRows(try openSource(path: try dir.gzip("ftc.csv")))
            #expect(zipped.count == 337_810)
            #expect(zipped == plain)
        }
    }

    @Test(.enabled(if: RealData.exists(begone), "needs ../shared/realdata/\(begone)"))
    func begonePlistYieldsOneRowPerDict() throws {
        let path = RealData.path(Self.begone)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let dicts = text.components(separatedBy: "<dict>").count - 1
        #expect(dicts == 1_746)
        let source = try openSource(path: path)
        #expect(source is PlistListSource)
        let rows = try collectRows(source)
        #expect(rows.count == dicts)
        #expect(rows.first == CollectedRow(5, "+4121560####", "Spam (local.ch++)"))
        #expect(rows.last == CollectedRow(text.components(separatedBy: "\n").count - 12, "+41779159285",
                                         "Spam (local.ch)"))
        #expect(rows.allSatisfy { $0.number.hasPrefix("+41") && $0.label?.hasPrefix("Spam") == true })
    }

    @Test(.enabled(if: RealData.exists(arcep), "needs ../shared/realdata/\(arcep)"))
    func arcepJSONYields804RangesWithOperators() throws {
        let path = RealData.path(Self.arcep)
        let source = try openSource(path: path)
        #expect(source is JSONListSource)
        let rows = try collectRows(source)
        #expect(rows.count == 804)
        #expect(rows.first == CollectedRow(2, "33162######", "ARCEP"))
        // Cross-check against Foundation's JSON parser.
        let objects = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
            as? [[String: String]] ?? []
        #expect(rows.map(\.number) == objects.map { $0["pattern"] ?? "\($0["start"]!)-\($0["end"]!)" })
        #expect(rows.map(\.label) == objects.map { $0["operator_name"] })
        let shape = /^(\d+#*|\d+-\d+)$/
        #expect(rows.allSatisfy { $0.number.wholeMatch(of: shape) != nil && $0.label?.isEmpty == false })
        #expect(Set(rows.map(\.line)).count == 804)  // each object on its own line
    }

    @Test(.enabled(if: RealData.exists(swissNumbers) && RealData.exists(swissPatterns),
                   "needs ../shared/realdata/swiss-spam-*.txt"))
    func swissTextListsYieldOneRowPerLine() throws {
        let numbers = try collectRows(try openSource(path: RealData.path(Self.swissNumbers)))
        #expect(numbers.count == 1_690)
        #expect(numbers.first == CollectedRow(1, "+41212130911"))
        let patterns = try collectRows(try openSource(path: RealData.path(Self.swissPatterns)))
        #expect(patterns.count == 56)
        #expect(patterns.first == CollectedRow(1, "+4121560####"))
        #expect(patterns.allSatisfy { $0.number.hasSuffix("#") })
    }
}
