import Foundation
import Testing

/// Issue 39 item 4: `--max-numbers` stops the read as soon as the budget is passed, so an
/// endless source (here `seq` to 10^15 through a FIFO, every row a number `--lenient` takes)
/// ends with exit 1 instead
/// of running until killed. The 60 s kill is a safety net against a hang, not a timing assertion.
@Suite("An endless source stops at --max-numbers")
struct EndlessSourceCLITests {
    @Test("compile --block FIFO fed without end, --max-numbers 1000: exit 1, the read stopped, nothing published",
          arguments: [[], ["--sort"]])
    func endlessFIFO(_ sort: [String]) throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let fifo = folder.file("numbers.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let output = folder.file("i.calldir")
        let (status, stderr) = try runShell("""
            seq 100000000000 999999999999999 > '\(fifo)' 2>/dev/null &
            writer=$!
            timeout -s KILL 60 '\(CLI.binary)' compile --lenient \(sort.joined()) --block '\(fifo)' --max-numbers 1000 -o '\(output)' -q
            status=$?
            kill $writer 2>/dev/null
            exit $status
            """)
        #expect(status == 1, "exit \(status) (137: still reading after 60 s): \(stderr)")
        #expect(stderr.contains("above --max-numbers 1,000; stopped reading"), "\(stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
