import Foundation
import Testing

/// What a compile that dies without cleaning up (kill -9) leaves, and what the next one does
/// about it: temporaries are named after their owner's PID (`.NAME.calldir.tmp.PID.XXXXXX`,
/// `calldir-sort-PID-XXXXXX`) and a compile removes those of dead owners when it starts.
@Suite("calldir compile killed with -9")
struct KillCompileCLITests {
    @Test("a compile removes the temporaries of dead owners, in the output folder and under --tmpdir, and nothing else")
    func staleTemporariesRemoved() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let out = scratch.file("out"), tmp = scratch.file("tmp")
        let fm = FileManager.default
        try fm.createDirectory(atPath: out, withIntermediateDirectories: true)
        try fm.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        let dead = try deadPID(), live = getpid()
        let planted = [
            "out/.i.calldir.calldir.tmp.\(dead).AbC123", "out/.r.tsv.calldir.tmp.\(dead).xyz789",
            "out/.i.calldir.calldir.tmp.\(live).DeF456", "out/.i.calldir.tmp.GhI789", "out/notes.txt",
            "tmp/calldir-sort-\(dead)-QwErTy/run-1.bin", "tmp/calldir-sort-\(dead)-QwErTy/run-7.bin",
            "tmp/calldir-sort-\(live)-AsDfGh/run-1.bin", "tmp/calldir-sort-\(dead)-ZxCvBn/keep.txt",
        ]
        for path in planted {
            try fm.createDirectory(atPath: scratch.file((path as NSString).deletingLastPathComponent),
                                   withIntermediateDirectories: true)
            scratch.write(path, "x")
        }
        let list = scratch.write("b.txt", "18005555555\n14085555555\n")
        let result = try CLI.run(["compile", "-q", "--sort", "--tmpdir", tmp, "--block", list,
                                  "--rejects", scratch.file("out/r.tsv"), "-o", scratch.file("out/i.calldir")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Set(try fm.contentsOfDirectory(atPath: out)) == [
            "i.calldir", "r.tsv", ".i.calldir.calldir.tmp.\(live).DeF456", ".i.calldir.tmp.GhI789", "notes.txt",
        ])
        #expect(Set(try fm.subpathsOfDirectory(atPath: tmp)) == [
            "calldir-sort-\(live)-AsDfGh", "calldir-sort-\(live)-AsDfGh/run-1.bin",
            "calldir-sort-\(dead)-ZxCvBn", "calldir-sort-\(dead)-ZxCvBn/keep.txt",
        ])
    }

    @Test("50 compiles killed with -9 at random points: the index is always the old or the new one, leftovers never pile up")
    func killNine() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let tmp = scratch.file("tmp")
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        // Two lists of 70,000 shuffled numbers (a fifth rejected): ~0.25 s each in a debug build on
        // a quiet machine. Kill delays scale with the measured time, so a loaded machine only slows it.
        let lists = [scratch.write("a.txt", shuffledNumbers(seed: 1)), scratch.write("b.txt", shuffledNumbers(seed: 2))]
        let index = scratch.file("i.calldir")
        func arguments(_ list: String) -> [String] {
            ["compile", "-q", "--sort", "--dedupe", "--skip-invalid", "--memory", "1M", "--tmpdir", tmp,
             "--rejects", scratch.file("rejects.tsv"), "--block", list, "-o", index]
        }
        var versions: [Data] = []
        var fullRun = 0.0
        for list in lists {
            let started = Date()
            #expect(try CLI.run(arguments(list)).status == 0)
            fullRun = max(fullRun, Date().timeIntervalSince(started))
            versions.append(try Data(contentsOf: URL(fileURLWithPath: index)))
        }
        #expect(versions[0] != versions[1])

        var killedWithLeftovers = 0
        for run in 0..<50 {
            let current = try Data(contentsOf: URL(fileURLWithPath: index))
            let delay = Double.random(in: 0...fullRun)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CLI.binary)
            process.arguments = arguments(lists[current == versions[0] ? 1 : 0])
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(useconds_t(delay * 1_000_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let published = try Data(contentsOf: URL(fileURLWithPath: index))
            #expect(published == versions[0] || published == versions[1], "run \(run), killed after \(delay) s")
            // One run leaves at most its temporary index, rejects list and spill folder: more
            // means an earlier run's leftovers were not removed.
            let left = try leftovers(scratch.path) + leftovers(tmp)
            #expect(left.count <= 3, "run \(run): \(left)")
            if !left.isEmpty { killedWithLeftovers += 1 }
        }
        #expect(killedWithLeftovers > 0, "no kill landed while temporaries existed; the test proved nothing")

        #expect(try CLI.run(arguments(lists[0])).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: index)) == versions[0])
        #expect(try leftovers(scratch.path).isEmpty && FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty)
    }

    /// Temporary files and spill folders in `folder`.
    private func leftovers(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter {
            $0.contains(".calldir.tmp.") || $0.hasPrefix("calldir-sort-")
        }
    }

    private func shuffledNumbers(seed: UInt64) -> String {
        var state = seed
        var text = ""
        text.reserveCapacity(70_000 * 12)
        for _ in 0..<70_000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            text += "1\(2_000_000_000 + (state >> 20) % 8_000_000_000)\n"
        }
        return text
    }

    /// The PID of a child that has exited and been reaped: no process has it.
    private func deadPID() throws -> Int32 {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        try child.run()
        child.waitUntilExit()
        return child.processIdentifier
    }
}
