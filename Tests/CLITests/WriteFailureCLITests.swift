import Foundation
import Testing

/// Real write failures, injected with a file-size limit (`ulimit -f`, SIGXFSZ ignored, so
/// write(2) fails with EFBIG part-way through the index).
@Suite("Write failures")
struct WriteFailureCLITests {
    @Test("a write that fails mid-index leaves the old index intact and no temporary file")
    func diskFullDuringCompile() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = scratch.file("i.calldir")
        let small = scratch.write("small.txt", "14085555555\n")
        #expect(try CLI.run(["compile", "-q", "--block", small, "-o", index]).status == 0)
        let before = FileManager.default.contents(atPath: index)
        let big = scratch.write("big.txt", (0..<200_000).map { "\(14_085_000_000 + $0 * 3)\n" }.joined())
        let (status, message) = try runShell("trap '' XFSZ; ulimit -f 64; exec '\(CLI.binary)' compile --block '\(big)' -o '\(index)'")
        #expect(status == 2)
        #expect(message.contains("write failed while writing the index: File too large"), "\(message)")
        #expect(FileManager.default.contents(atPath: index) == before)
        let stray = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.contains(".tmp.") }
        #expect(stray.isEmpty, "temporary file left: \(stray)")
    }

    @Test("a rejects list that cannot be written fails the compile before the index is published")
    func rejectsWriteFails() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = scratch.file("i.calldir")
        let first = scratch.write("first.txt", "14085555555\n")
        #expect(try CLI.run(["compile", "-q", "--block", first, "-o", index]).status == 0)
        let before = FileManager.default.contents(atPath: index)
        // A tiny index but a rejects list of about 200 KB: over the 64 KiB limit, under the
        // 1 MiB write buffer, so it fails in the final flush, after the index was complete.
        let rows = (0..<5_000).map { "not a number \($0)\n" }.joined() + "18005555555\n"
        let list = scratch.write("mixed.txt", rows)
        let rejects = scratch.file("rejects.tsv")
        let shell = "trap '' XFSZ; ulimit -f 64; exec '\(CLI.binary)' compile --skip-invalid --block '\(list)' "
            + "--rejects '\(rejects)' -o '\(index)'"
        let (status, message) = try runShell(shell)
        #expect(status == 2)
        #expect(message.contains("\(rejects): write failed while writing the rejects list: File too large"), "\(message)")
        #expect(!message.contains("the index"), "\(message)")
        #expect(FileManager.default.contents(atPath: index) == before)
        #expect(!FileManager.default.fileExists(atPath: rejects))
        let stray = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.contains(".tmp.") }
        #expect(stray.isEmpty, "temporary file left: \(stray)")

        // A rejects path in a folder that does not exist: the same, found before any work.
        let missing = scratch.file("no/such/dir/rejects.tsv")
        let result = try CLI.run(["compile", "--skip-invalid", "--block", list, "--rejects", missing, "-o", index])
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(missing): cannot create a temporary file in \(scratch.file("no/such/dir")) "
                                       + "for the rejects list"), "\(result.stderr)")
        #expect(FileManager.default.contents(atPath: index) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.contains(".tmp.") }.isEmpty)
    }

    @Test("a refused list (exit 1) still publishes its rejects list, never the index")
    func refusedListPublishesRejects() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = scratch.file("i.calldir")
        #expect(try CLI.run(["compile", "-q", "--block", scratch.write("a.txt", "14085555555\n"), "-o", index]).status == 0)
        let before = FileManager.default.contents(atPath: index)
        let rejects = scratch.file("rejects.tsv")
        let result = try CLI.run(["compile", "--block", scratch.write("b.txt", "18005555555\nhello\n"),
                                  "--rejects", rejects, "-o", index])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(FileManager.default.contents(atPath: index) == before)
        #expect(try String(contentsOfFile: rejects, encoding: .utf8).contains("b.txt:2\tinvalid-character\thello\n"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.contains(".tmp.") }.isEmpty)
    }


    @Test("an output folder that does not exist is a clear I/O error")
    func missingFolder() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let list = scratch.write("b.txt", "14085555555\n")
        let result = try CLI.run(["compile", "--block", list, "-o", scratch.file("no/such/dir/i.calldir")])
        #expect(result.status == 2)
        #expect(result.stderr.contains("cannot create a temporary file in \(scratch.file("no/such/dir"))"))
    }
}
