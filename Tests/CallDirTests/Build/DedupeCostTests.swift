import CallDirReader
import Foundation
import Testing
import TestSupport
@testable import CallDir

/// Issue 46: `--sort --dedupe` cost 9.5-15x more CPU as soon as a list had repeats, because
/// each repeat (the first 100) reread its source file up to its row to show it in a message
/// no one sees. A repeat collapsed by --dedupe now reads nothing again; the figure is
/// docs/BENCHMARKS.md's `dedupe-repeats` row.
@Suite("Repeats under --dedupe")
struct DedupeCostTests {
    @Test("shuffled formatted rows with 150 repeats: every repeat counted, no row read again", arguments: [false, true])
    func repeatsReadNoRowAgain(listed: Bool) throws {
        let folder = TempFolder()
        var random = SeededGenerator(seed: 46)
        var rows = (0..<3_000).map { "(201) 555-\(String(format: "%04d", $0))" }
        rows += (0..<150).map { rows[$0 * 7] }
        rows.shuffle(using: &random)
        var options = CompileOptions(output: folder.file("list.calldir"))
        options.blockSources = [.file(folder.write("list.txt", rows))]
        options.country = 1
        options.sort = true
        options.dedupe = true
        if listed { options.rejectsPath = folder.file("rejects.tsv") }
        let compiler = try Compiler(options: options, onDiagnostic: { _ in })
        let summary = try compiler.run()
        #expect(summary.duplicates == 150)
        #expect(compiler.rowsReadAgain == 0)
        #expect(try CallDirIndex(path: folder.file("list.calldir")).blockedCount == 3_000)
        if listed {
            let listedRows = try String(contentsOfFile: folder.file("rejects.tsv"), encoding: .utf8)
                .split(separator: "\n").filter { $0.contains("\tduplicate\t") }
            #expect(listedRows.count == 150)
        }
    }
}
