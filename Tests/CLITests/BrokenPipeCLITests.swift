import Foundation
import Testing

/// Issue 39 item 4: a reader that leaves early is a failing output (exit 2, docs/CLI.md), not
/// a death by SIGPIPE (exit 141), and the temporary an export writes first is removed.
@Suite("Outputs whose reader leaves early")
struct BrokenPipeCLITests {
    /// Runs the rest of its command line with SIGPIPE's default action, as from a user's shell
    /// (this test process ignores SIGPIPE, and an ignored signal stays ignored across exec).
    static let withDefaultSIGPIPE = #"python3 -c 'import os, signal, sys; signal.signal(signal.SIGPIPE, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])'"#

    /// 20,000 blocked numbers: an export of 240 KB, more than a pipe holds.
    func makeIndex(_ folder: TempFolder) throws -> String {
        let list = folder.write("b.txt", (0..<20_000).map { "\(14_085_550_000 + $0 * 3)\n" }.joined())
        let index = folder.file("i.calldir")
        #expect(try CLI.run(["compile", "--block", list, "-o", index, "-q"]).status == 0)
        return index
    }

    @Test("export -o FIFO whose reader takes 100 bytes and leaves: exit 2, the temporary in $TMPDIR removed")
    func exportIntoAbandonedFIFO() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let index = try makeIndex(folder)
        let fifo = folder.file("out.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let tmp = folder.file("tmp")
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: false)
        let (status, stderr) = try runShell("""
            head -c 100 '\(fifo)' > /dev/null &
            TMPDIR='\(tmp)' \(Self.withDefaultSIGPIPE) '\(CLI.binary)' export --index '\(index)' --format text --kind block -o '\(fifo)'
            """)
        #expect(status == 2, "\(stderr)")
        #expect(stderr.contains("Broken pipe") || stderr.contains("EPIPE"), "\(stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty, "temporaries left in $TMPDIR")
    }

    @Test("lookup - into a pipe whose reader leaves after one line: exit 2, not 141")
    func lookupIntoClosedPipe() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let index = try makeIndex(folder)
        let (status, stderr) = try runShell("""
            yes +14085550000 | head -n 200000 | \(Self.withDefaultSIGPIPE) '\(CLI.binary)' lookup --index '\(index)' - | head -n 1 > /dev/null
            exit ${PIPESTATUS[2]}
            """)
        #expect(status == 2, "\(stderr)")
    }
}
