import Foundation
import Testing

/// `calldir diff` and `calldir patch` as a script uses them: exit codes, --json, and
/// `inspect`/`verify` on the delta.
@Suite("calldir diff and patch")
struct DeltaCLITests {
    @Test("diff, inspect, verify and patch a delta; a delta for another index exits 1 and writes nothing")
    func roundTrip() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let oldList = scratch.write("old.txt", "14085550000\n14085550001\n1900555####\n")
        let newList = scratch.write("new.txt", "14085550001\n14085550002\n1900555####\n1800222####\n")
        let labels = scratch.write("i.csv", "18005550100,Spam\n")
        for (list, name) in [(oldList, "old"), (newList, "new")] {
            #expect(try CLI.run(["compile", "-q", "--block", list, "--identify", labels, "-o", scratch.file("\(name).calldir")]).status == 0)
        }
        let diff = try CLI.run(["diff", "--json", scratch.file("old.calldir"), scratch.file("new.calldir"), "-o", scratch.file("d.delta")])
        #expect(diff.status == 0)
        let summary = try JSONSerialization.jsonObject(with: Data(diff.stdout.utf8)) as? [String: Any]
        #expect(summary?["removedBlocked"] as? Int == 1 && summary?["addedBlocked"] as? Int == 1 && summary?["addedRanges"] as? Int == 1)
        let inspect = try CLI.run(["inspect", "--json", scratch.file("d.delta")])
        let info = try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as? [String: Any]
        #expect(inspect.status == 0 && info?["kind"] as? String == "delta" && info?["formatVersion"] as? String == "2.0")
        #expect(try CLI.run(["verify", scratch.file("d.delta")]).stdout.hasPrefix("ok: "))
        #expect(try CLI.run(["patch", "-q", scratch.file("old.calldir"), scratch.file("d.delta"), "-o", scratch.file("p.calldir")]).status == 0)
        #expect(FileManager.default.contents(atPath: scratch.file("p.calldir")) == FileManager.default.contents(atPath: scratch.file("new.calldir")))
        let wrong = try CLI.run(["patch", scratch.file("new.calldir"), scratch.file("d.delta"), "-o", scratch.file("x.calldir")])
        #expect(wrong.status == 1 && wrong.stderr.contains("applies to the index with checksum"))
        #expect(!FileManager.default.fileExists(atPath: scratch.file("x.calldir")))
        #expect(try CLI.run(["diff", scratch.file("old.calldir")]).status == 64)
    }
}
