import Foundation
import TestSupport
import Testing

/// One home per figure: docs/BENCHMARKS.md's table holds each measured figure once, a row with
/// an id (`<a id="compile-10m"></a>`). Other docs cite the row (`[compile](docs/BENCHMARKS.md#compile-10m)`)
/// or quote its figure as the link's text (`[0.19 s](docs/BENCHMARKS.md#compile-10m)`): a link
/// text holding a digit is a quote and must appear as it is in the row's "Today" cell, so a row
/// updated without its quotes (or a quote edited alone) fails here. Every relative link of the
/// docs must reach a file, and a `#fragment` into a Markdown file one of its headings or ids.
@Suite("the docs' links and quoted figures")
struct DocFigureTests {
    @Test("every relative link resolves, every quoted figure is its row's")
    func docsAgreeWithTheirRows() throws {
        let problems = DocLinks(documents: try DocLinks.readDocs(under: packageRoot), root: packageRoot).problems()
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test("a quote that differs from its row, a missing row and a broken link are each reported")
    func wrongQuotesAreFound() {
        let table = """
            ## Today's figures

            | Figure | Today | Build; machine | Date | Command | Log |
            |---|---|---|---|---|---|
            | <a id="load-verify"></a>Load and verify | median 55 ms (10M entries) | release | 2026-11-22 | `x` | [Log](BENCHMARKS-LOG.md#load) |
            """
        let log = "# Log\n\n## Load\n"
        func problems(_ readme: String, table: String = table) -> [String] {
            DocLinks(documents: ["docs/BENCHMARKS.md": table, "docs/BENCHMARKS-LOG.md": log, "README.md": readme])
                .problems()
        }
        #expect(problems("verified in [55 ms](docs/BENCHMARKS.md#load-verify).").isEmpty)
        #expect(problems("see [the row](docs/BENCHMARKS.md#load-verify).").isEmpty)
        let wrong = problems("verified in [0.1 to 0.3 s](docs/BENCHMARKS.md#load-verify).")
        #expect(wrong == ["README.md: quotes '0.1 to 0.3 s' from docs/BENCHMARKS.md#load-verify, whose figure reads 'median 55 ms (10M entries)'"])
        #expect(problems("[55 ms](docs/BENCHMARKS.md#load-verfy)")
            == ["README.md: link to docs/BENCHMARKS.md#load-verfy: no such heading or id there"])
        #expect(problems("[spec](FORMAT2.md)") == ["README.md: link to FORMAT2.md: no such file"])
        #expect(problems("```\n[not a link](nowhere.md)\n```\n").isEmpty)
        let merged = problems("", table: table + "\n| Compile | 0.2 s | A section (2026-11-28) | `x` |")
        #expect(merged == ["docs/BENCHMARKS.md: a row of \"Today's figures\" without an id: | Compile | 0.2 s | A section (2026-11-28) | `x` |"])
    }
}
