import Foundation
import Testing

/// Real write failures, injected with a file-size limit (`ulimit -f`, SIGXFSZ ignored, so
/// write(2) fails with EFBIG part-way through the index).
@Suite("Write failures")
struct WriteFailureCLITests {
    @Test("a write that fails mid-index leaves the old index intact and no temporary file")
    func diskFullDuringCompile() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let index = scratch.file("i.calldir")
        let small = scratch.write("small.txt", "14085555555\n")
        #expect(try CLI.run(["compile", "-q", "--block", small, "-o", index]).status == 0)
        let before = FileManager.default.contents(atPath: index)
        let big = scratch.write("big.txt", (0..<200_000).map { "\(14_085_000_000 + $0 * 3)\n" }.joined())
        let shell = "trap '' XFSZ; ulimit -f 64; exec '\(CLI.binary)' compile --block '\(big)' -o '\(index)'"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", shell]
        let err = Pipe()
        process.standardError = err
        try process.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 2)
        #expect(message.contains("write failed while writing the index: File too large"), "\(message)")
        #expect(FileManager.default.contents(atPath: index) == before)
        let stray = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.contains(".tmp.") }
        #expect(stray.isEmpty, "temporary file left: \(stray)")
    }

    @Test("an output folder that does not exist is a clear I/O error")
    func missingFolder() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let list = scratch.write("b.txt", "14085555555\n")
        let result = try CLI.run(["compile", "--block", list, "-o", scratch.file("no/such/dir/i.calldir")])
        #expect(result.status == 2)
        #expect(result.stderr.contains("cannot create a temporary file in \(scratch.file("no/such/dir"))"))
    }
}
