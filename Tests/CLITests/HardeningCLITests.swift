import Foundation
import Testing
@testable import CallDirReader
import TestSupport

/// Issue 23 as a user meets it: paths that are FIFOs or devices, and a forged range record.
@Suite("Hostile paths and forged files at the command line")
struct HardeningCLITests {
    /// Runs `calldir ARGS`; a process still running after 20 s is killed and reported (a safety
    /// net against a hang, not a timing assertion).
    func runBounded(_ arguments: [String]) throws -> (status: Int32, stderr: String, hung: Bool) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = arguments
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var hung = false
        for _ in 0..<2000 where process.isRunning { usleep(10_000) }
        if process.isRunning { hung = true; kill(process.processIdentifier, SIGKILL) }
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text, hung)
    }

    @Test("a FIFO given as an index is refused at once by every command that opens one (exit 2), never waited on")
    func fifoAsIndex() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let fifo = folder.file("index.calldir")
        #expect(mkfifo(fifo, 0o644) == 0)
        let good = folder.file("good.calldir")
        #expect(try CLI.run(["compile", "--block", folder.write("b.txt", "14085550000\n"), "-o", good, "-q"]).status == 0)
        for arguments in [["verify", fifo], ["inspect", fifo], ["lookup", "--index", fifo, "14085550000"],
                          ["export", "--index", fifo, "--format", "text"], ["simulate", fifo],
                          ["simulate", "--from", fifo, good], ["diff", fifo, good, "-o", folder.file("d.delta")],
                          ["patch", fifo, good, "-o", folder.file("p.calldir")]] {
            let result = try runBounded(arguments)
            #expect(!result.hung, "calldir \(arguments.joined(separator: " ")) waited on the FIFO")
            #expect(result.status == 2 && result.stderr.contains("a FIFO, not a regular file"),
                    "calldir \(arguments.joined(separator: " ")): \(result.status) \(result.stderr)")
        }
    }

    @Test("calldir patch -o NODE (a private character device made with mknod) writes into it and leaves it a device")
    func patchIntoDevice() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let node = folder.file("null")
        guard mknod(node, S_IFCHR | 0o666, dev_t(0x103)) == 0 else {
            print("skipped: mknod needs root (CAP_MKNOD); uid \(getuid()): \(String(cString: strerror(errno)))")
            return
        }
        let old = folder.file("old.calldir"), new = folder.file("new.calldir"), delta = folder.file("d.delta")
        #expect(try CLI.run(["compile", "--block", folder.write("o.txt", "14085550000\n"), "-o", old, "-q"]).status == 0)
        #expect(try CLI.run(["compile", "--block", folder.write("n.txt", "14085550001\n"), "-o", new, "-q"]).status == 0)
        #expect(try CLI.run(["diff", old, new, "-o", delta]).status == 0)
        let patched = try CLI.run(["patch", old, delta, "-o", node])
        #expect(patched.status == 0, "\(patched.stderr)")
        var info = stat()
        #expect(lstat(node, &info) == 0 && info.st_mode & S_IFMT == S_IFCHR, "the device node was replaced")
        let folderDirectory = try CLI.run(["export", "--index", new, "--format", "text", "-o", folder.path])
        #expect(folderDirectory.status == 2 && folderDirectory.stderr.contains("the output is a directory"), "\(folderDirectory.stderr)")
    }

    @Test("one forged range record (metadata unchanged): simulate and export refuse it at open, naming the metadata check")
    func forgedRange() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let path = folder.file("b.calldir")
        #expect(try CLI.run(["compile", "--block", folder.write("b.txt", "14085550000\n1900555####\n"), "-o", path, "-q"]).status == 0)
        var forger = Forger(bytes: Array(FileManager.default.contents(atPath: path)!))
        let ranges = try #require(forger.section(7))
        let first = try #require(forger.read(ranges.offset, 8))
        forger.write(ranges.offset + 8, 8, first + 99_999_999_999)  // 10^11 numbers
        forger.reseal()
        let forged = folder.write("forged.calldir", forger.bytes)
        let simulate = try runBounded(["simulate", forged])
        #expect(!simulate.hung && simulate.status == 2 && simulate.stderr.contains("metadata"), "\(simulate.stderr)")
        let export = try runBounded(["export", "--index", forged, "--format", "text", "--ranges", "expand", "-o", folder.file("x.txt")])
        // Refused at open (issue 39: the metadata's range numbers against the section) before
        // --max-numbers is consulted; ExportEscapingTests forge the metadata to agree for that.
        #expect(!export.hung && export.status == 2 && export.stderr.contains("metadata: derived counts"), "\(export.stderr)")
    }
}
