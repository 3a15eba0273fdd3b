import Foundation
import Testing

/// `--help` is the manual most users read: any change to it shows up here, on purpose.
/// After an intended change: `for c in "" compile lookup inspect verify simulate export diff patch shard serve keygen publish update; do
/// .build/debug/calldir $c --help > Tests/CLITests/Fixtures/help${c:+-$c}.txt; done`
@Suite("Help text snapshots")
struct HelpSnapshotTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    @Test("each --help matches its snapshot", arguments: ["", "compile", "lookup", "inspect", "verify", "simulate", "export", "diff", "patch", "shard", "serve", "keygen", "publish", "update"])
    func help(subcommand: String) throws {
        let arguments = subcommand.isEmpty ? ["--help"] : [subcommand, "--help"]
        let result = try CLI.run(arguments, environment: ["COLUMNS": "80"])
        #expect(result.status == 0)
        let name = subcommand.isEmpty ? "help.txt" : "help-\(subcommand).txt"
        let expected = try String(contentsOf: Self.fixtures.appendingPathComponent(name), encoding: .utf8)
        #expect(result.stdout == expected)
    }

    @Test("a usage error explains itself and exits 64, as argument-parser does")
    func usageError() throws {
        let result = try CLI.run(["compile"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("Nothing to compile: give --block, --identify"))
    }
}
