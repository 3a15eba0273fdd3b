import Foundation
import Testing
@testable import CallDir
@testable import CallDirWriter
import TestSupport

/// The PID of a child that has exited and been reaped: no process has it (until the PID
/// counter wraps around, far beyond a test's lifetime).
func deadPID() throws -> Int32 {
    let child = Process()
    child.executableURL = URL(fileURLWithPath: "/bin/true")
    try child.run()
    child.waitUntilExit()
    return child.processIdentifier
}

@Suite("Stale temporaries")
struct StaleTemporariesTests {
    @Test("the recogniser reads the owner PID from our names and nothing else")
    func recogniser() {
        #expect(StaleTemporaries.recognise(".i.calldir.calldir.tmp.4242.aB3xYz")! == (4242, .file))
        #expect(StaleTemporaries.recognise(".rejects.tsv.calldir.tmp.7.000000")! == (7, .file))
        #expect(StaleTemporaries.recognise("calldir-sort-99-Qw3rty")! == (99, .spillFolder))
        #expect(StaleTemporaries.recognise("calldir-sort-99-123456")! == (99, .spillFolder))
        for name in [
            ".i.calldir.tmp.aB3xYz",                // before PIDs: unknown owner, never touched
            "calldir-sort-Qw3rty",                  // the same for spill folders
            "..calldir.tmp.4242.aB3xYz",            // no destination name
            ".i.calldir.calldir.tmp.4242.aB3xY",    // five random characters
            ".i.calldir.calldir.tmp.4242.aB3-Yz",   // not mkstemp's alphabet
            ".i.calldir.calldir.tmp..aB3xYz",       // no PID
            ".i.calldir.calldir.tmp.0.aB3xYz",      // PID 0 would mean our process group
            ".i.calldir.calldir.tmp.99999999999.aB3xYz",  // not a PID
            "i.calldir.calldir.tmp.4242.aB3xYz",    // not hidden
            ".i.calldir.calldir.tmp.4242-aB3xYz",   // a folder's separator on a file
            "calldir-sort-99.Qw3rty", "xcalldir-sort-99-Qw3rty", "calldir-sort--Qw3rty",
            "notes.txt", "", "run-1.bin",
        ] {
            #expect(StaleTemporaries.recognise(name) == nil, "\(name)")
        }
        #expect(StaleTemporaries.isRunFileName("run-12.bin"))
        #expect(!StaleTemporaries.isRunFileName("run-.bin") && !StaleTemporaries.isRunFileName("run-1.bin.keep"))
    }

    @Test("the names the library creates are recognised as this process's")
    func ownNames() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let file = try AtomicFile(destination: folder.file("i.calldir"))
        defer { file.discard() }
        let name = String(file.temporaryPath.split(separator: "/").last!)
        #expect(StaleTemporaries.recognise(name)! == (getpid(), .file), "\(name)")
        let spill = try SpillFolder(parent: folder.path)
        defer { spill.removeAll() }
        #expect(StaleTemporaries.recognise(String(spill.path.split(separator: "/").last!))! == (getpid(), .spillFolder))
        #expect(!StaleTemporaries.ownerIsDead(getpid()))
        #expect(StaleTemporaries.ownerIsDead(try deadPID()))
    }

    @Test("a sweep removes a dead owner's files and spill folders, never a live one's or anything else")
    func sweep() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let dead = try deadPID(), live = getpid()
        let fm = FileManager.default
        folder.write(".i.calldir.calldir.tmp.\(dead).aaaaaa", "partial index")
        folder.write(".i.calldir.calldir.tmp.\(live).bbbbbb", "being written")
        folder.write(".i.calldir.tmp.cccccc", "an old-style name: owner unknown")
        folder.write("i.calldir", "the published index")
        for (pid, suffix) in [(dead, "dddddd"), (live, "eeeeee"), (dead, "ffffff")] {
            try fm.createDirectory(atPath: folder.file("calldir-sort-\(pid)-\(suffix)"), withIntermediateDirectories: false)
            folder.write("calldir-sort-\(pid)-\(suffix)/run-1.bin", "run")
            folder.write("calldir-sort-\(pid)-\(suffix)/run-2.bin", "run")
        }
        folder.write("calldir-sort-\(dead)-ffffff/mine.txt", "someone else's file: the folder stays")
        #expect(StaleTemporaries.sweep(folders: [folder.path, folder.path, folder.file("missing")]) == 2)
        let left = Set(try fm.contentsOfDirectory(atPath: folder.path))
        #expect(left == [".i.calldir.calldir.tmp.\(live).bbbbbb", ".i.calldir.tmp.cccccc", "i.calldir",
                         "calldir-sort-\(live)-eeeeee", "calldir-sort-\(dead)-ffffff"])
        #expect(try fm.contentsOfDirectory(atPath: folder.file("calldir-sort-\(live)-eeeeee")).sorted() == ["run-1.bin", "run-2.bin"])
        #expect(try fm.contentsOfDirectory(atPath: folder.file("calldir-sort-\(dead)-ffffff")) == ["mine.txt"])
    }
}
