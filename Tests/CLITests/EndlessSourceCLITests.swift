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

    /// With --sort and --dedupe or --allow, rows may repeat or be allowed away before the sort,
    /// so the read has its own budget: 10 × --max-numbers rows held for sorting. Fed without
    /// end, whether every row is new (`seq`) or the same few repeat forever (`yes`), the read
    /// stops there. Before the read budget both ran until killed.
    @Test("compile --sort with --dedupe or --allow, FIFO fed without end: exit 1 at 10 × --max-numbers rows read for sorting",
          arguments: ["--dedupe", "--allow"], ["seq 100000000000 999999999999999", "yes 12015550100"])
    func endlessFIFOSortedWithDrops(_ flag: String, _ feed: String) throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let fifo = folder.file("numbers.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let allow = folder.file("allow.txt")
        #expect(FileManager.default.createFile(atPath: allow, contents: Data("12015550100\n".utf8)))
        let drops = flag == "--allow" ? "--allow '\(allow)'" : "--dedupe"
        let output = folder.file("i.calldir")
        let (status, stderr) = try runShell("""
            \(feed) > '\(fifo)' 2>/dev/null &
            writer=$!
            timeout -s KILL 60 '\(CLI.binary)' compile --lenient --sort \(drops) --block '\(fifo)' --max-numbers 1000 -o '\(output)' -q
            status=$?
            kill $writer 2>/dev/null
            exit $status
            """)
        #expect(status == 1, "exit \(status) (137: still reading after 60 s): \(stderr)")
        #expect(stderr.contains("more than 10,000 rows read for sorting, 10 times --max-numbers 1,000"), "\(stderr)")
        #expect(stderr.contains("stopped reading"), "\(stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
