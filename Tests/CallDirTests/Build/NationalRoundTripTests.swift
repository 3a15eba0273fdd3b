import Foundation
import Testing
@testable import CallDir
@testable import CallDirReader
import CompileSupport
import TestSupport

/// Issue 33 item 5: an index compiled with `--country` and exported, compiled back with the
/// same `--country`, is the same index, for countries whose E.164 digits without '+' start
/// with their own calling code (Italy, Chile, Hong Kong, India, Spain): exports write E.164
/// digits, which libphonenumber reads back as the same number (the calling code stripped, not
/// doubled). Before issue 33, `390612345678` with --country 39 became +39 390612345678.
@Suite("National round trips")
struct NationalRoundTripTests {
    /// Numbers of each country as its users write them, with random tails: (calling code,
    /// national prefixes of valid numbers, digits after the prefix).
    static let countries: [(code: Int, prefixes: [String], tail: Int)] = [
        (39, ["06", "02", "333", "347"], 7),
        (56, ["22", "99"], 7),
        (852, ["2", "9", "5"], 7),
        (91, ["98", "80", "70"], 8),
        (34, ["91", "61"], 7),
    ]

    @Test("compile --country, export (text, csv, Saracroche, Begone), compile back: same bytes", arguments: [0, 1, 2, 3, 4])
    func sameIndex(_ which: Int) throws {
        let (code, prefixes, tail) = Self.countries[which]
        let folder = TempFolder()
        defer { folder.remove() }
        var rng = SeededGenerator(seed: UInt64(code))
        func national() -> String {
            prefixes.randomElement(using: &rng)! + (0..<tail).map { _ in String(Int.random(in: 0...9, using: &rng)) }.joined()
        }
        let block = (0..<300).map { i in i % 2 == 0 ? national() : "+\(code) \(national())" }
        let identify = (0..<300).map { "\(national()),Caller \($0 % 7)" }
        let blockList = folder.write("block.txt", block)
        let identifyList = folder.write("identify.csv", ["number,label"] + identify)
        let flags = { (options: inout CompileOptions) in
            options.country = code
            options.sort = true
            options.dedupe = true
        }
        let original = folder.file("original.calldir")
        try compile(block: [blockList], identify: [identifyList], output: original, configure: flags)
        #expect(try CallDirIndex(path: original).metadata.blockedNumbers > 250)

        for (format, ext) in [(ExportFormat.text, "txt"), (.csv, "csv"), (.begone, "plist")] {
            let b = folder.file("b.\(ext)"), i = folder.file("i.\(ext)")
            _ = try Exporter(index: CallDirIndex(path: original), options: Self.options(format, .block)).run(to: b)
            _ = try Exporter(index: CallDirIndex(path: original), options: Self.options(format, .identify)).run(to: i)
            let again = folder.file("again-\(ext).calldir")
            try compile(block: [b], identify: [i], output: again, configure: flags)
            #expect(fileBytes(again) == fileBytes(original), "\(format) with --country \(code)")
        }
        let list = folder.file("list.json")
        _ = try Exporter(index: CallDirIndex(path: original), options: ExportOptions(format: .saracroche)).run(to: list)
        var options = CompileOptions(output: folder.file("list.calldir"))
        flags(&options)
        options.blockSources = [.list(list)]
        options.identifySources = [.list(list)]
        var diagnostics: [Diagnostic] = []
        try compile(options, diagnostics: &diagnostics)
        #expect(fileBytes(folder.file("list.calldir")) == fileBytes(original), "saracroche with --country \(code)")
    }

    static func options(_ format: ExportFormat, _ kind: ExportKind) -> ExportOptions {
        var options = ExportOptions(format: format)
        options.kind = kind
        return options
    }
}
