import Foundation
import Testing
import TestSupport

/// `calldir export` run as a process: outputs, exit statuses, stdout failures, --list.
@Suite("Export CLI")
struct ExportCLITests {
    /// An index of data/-like lists: 2 blocked numbers and a pattern, 2 labelled numbers.
    static func index(_ scratch: TempFolder) throws -> String {
        let block = scratch.write("b.txt", "14085555555\n18005555555\n1900555####\n")
        let identify = scratch.write("i.csv", "number,label\n14085555555,Spam risk\n18885550100,\"Dentist, Dr. Smith\"\n")
        let index = scratch.file("i.calldir")
        #expect(try CLI.run(["compile", "-q", "--block", block, "--identify", identify, "-o", index]).status == 0)
        return index
    }

    @Test("text to stdout, csv to a file, then compile --list of the saracroche export gives the same index")
    func exportAndRecompile() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = try Self.index(scratch)
        let text = try CLI.run(["export", "--index", index, "--format", "text", "--kind", "block"])
        #expect(text.status == 0 && text.stdout == "14085555555\n18005555555\n1900555####\n" && text.stderr.isEmpty)
        let csv = try CLI.run(["export", "--index", index, "--format", "csv", "--kind", "identify", "-o", scratch.file("i2.csv")])
        #expect(csv.status == 0 && csv.stderr == "exported 2 records as csv to \(scratch.file("i2.csv")): 68 bytes\n")
        #expect(try String(contentsOfFile: scratch.file("i2.csv"), encoding: .utf8)
                == "number,label\n14085555555,Spam risk\n18885550100,\"Dentist, Dr. Smith\"\n")
        let json = scratch.file("list.json")
        #expect(try CLI.run(["export", "-q", "--index", index, "--format", "saracroche", "-o", json]).status == 0)
        #expect(try CLI.run(["compile", "-q", "--list", json, "-o", scratch.file("again.calldir")]).status == 0)
        #expect(FileManager.default.contents(atPath: scratch.file("again.calldir")) == FileManager.default.contents(atPath: index))
        let stray = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.contains(".tmp.") }
        #expect(stray.isEmpty, "temporary file left: \(stray)")
    }

    @Test("a failing stdout is an error (exit 2), not a silently short export")
    func stdoutFailure() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = try Self.index(scratch)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exec '\(CLI.binary)' export --index '\(index)' --format text --kind block > /dev/full"]
        let err = Pipe()
        process.standardError = err
        try process.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 2)
        #expect(message.contains("cannot write the export to standard output: No space left on device"), "\(message)")
    }

    @Test("usage problems exit 64, a budget refusal exits 2 and writes nothing")
    func failures() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = try Self.index(scratch)
        let both = try CLI.run(["export", "--index", index, "--format", "text"])
        #expect(both.status == 64 && both.stderr.contains("choose one with --kind block or --kind identify"))
        #expect(try CLI.run(["export", "--index", index, "--format", "csv", "--kind", "all"]).status == 64)
        #expect(try CLI.run(["export", "--index", index, "--format", "yaml"]).status == 64)
        let over = try CLI.run(["export", "--index", index, "--format", "live-caller-id", "--max-numbers", "10000",
                                "-o", scratch.file("x.txtpb")])
        #expect(over.status == 2 && over.stderr.contains("would list 10,003 numbers"), "\(over.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("x.txtpb")))
        let missing = try CLI.run(["export", "--index", scratch.file("none.calldir"), "--format", "text"])
        #expect(missing.status == 2)
        #expect(try CLI.run(["compile", "--list", "-"]).status == 64)
    }
}
