import Foundation
import Testing

/// `calldir compile --check` (issue 27): every rule of a compile, nothing written.
@Suite("calldir compile --check")
struct CompileCheckCLITests {
    /// Every entry under `path`, recursively, with its size and modification time.
    static func listing(_ path: String) throws -> [String] {
        let manager = FileManager.default
        return try (manager.subpathsOfDirectory(atPath: path)).sorted().map { name in
            let attributes = try manager.attributesOfItem(atPath: path + "/" + name)
            let size = (attributes[.size] as? NSNumber)?.intValue ?? -1
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? -1
            return "\(name) \(size) \(modified)"
        }
    }

    /// `count` shuffled valid NANP numbers, one a line (a list that needs --sort).
    static func shuffledNumbers(_ count: Int, seed: UInt64) -> String {
        var generator = SeededGenerator(seed: seed)
        var text = ""
        text.reserveCapacity(count * 12)
        for _ in 0..<count {
            let n = 10_000_000_000 + Int64.random(in: 200...999, using: &generator) * 10_000_000
                + Int64.random(in: 200...999, using: &generator) * 10_000 + Int64.random(in: 0...9_999, using: &generator)
            text += "\(n)\n"
        }
        return text
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("a spilling --sort check leaves the output folder and TMPDIR exactly as they were, with a compile's summary")
    func writesNothing() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let input = scratch.write("shuffled.txt", Self.shuffledNumbers(300_000, seed: 27))
        let identify = scratch.write("callers.csv", "15552000001,Dentist\n15552000002,Bank\n")
        let outputFolder = scratch.file("out"), tmp = scratch.file("tmp"), home = scratch.file("home")
        for folder in [outputFolder, tmp, home] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        let existing = outputFolder + "/index.calldir"
        try Data("an index published earlier".utf8).write(to: URL(fileURLWithPath: existing))
        // A stale temporary of a compile killed long ago: a compile sweeps it, a check must not.
        try Data("stale".utf8).write(to: URL(fileURLWithPath: outputFolder + "/.index.calldir.calldir.tmp.999999.abcdef"))
        let before = (try Self.listing(outputFolder), try Self.listing(tmp), try Self.listing(home))
        func modified(_ path: String) throws -> Date? { try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date }
        let folderModified = try modified(outputFolder)
        usleep(20_000)  // a folder entry made and removed in this window would show in the folder's own time
        let environment = ["TMPDIR": tmp, "XDG_DATA_HOME": home, "HOME": home]
        let options = ["--sort", "--dedupe", "--memory", "1M", "--block", input, "--identify", identify, "--json"]

        let check = try CLI.run(["compile", "--check"] + options + ["-o", existing], environment: environment)
        #expect(check.status == 0, "\(check.stderr)")
        let after = (try Self.listing(outputFolder), try Self.listing(tmp), try Self.listing(home))
        #expect(after.0 == before.0, "output folder changed")
        #expect(try modified(outputFolder) == folderModified, "an entry was made in the output folder, even if removed")
        #expect(after.1 == before.1, "TMPDIR changed")
        #expect(after.2 == before.2)
        let checked = try Self.json(check.stdout)
        #expect((checked["sortRuns"] as? Int ?? 0) > 2, "the sort did not spill: \(checked)")
        #expect(check.stderr.contains("checked ") && check.stderr.contains("nothing written"))

        // Without -o: nothing under the default index's folders either.
        let bare = try CLI.run(["compile", "--check"] + options, environment: environment)
        #expect(bare.status == 0, "\(bare.stderr)")
        #expect(try Self.listing(home) == before.2 && Self.listing(tmp) == before.1)

        // The same counts, bytes and checksum as the compile that writes the index.
        let compiled = try CLI.run(["compile"] + options + ["-o", scratch.file("real.calldir")], environment: environment)
        #expect(compiled.status == 0, "\(compiled.stderr)")
        var real = try Self.json(compiled.stdout)
        var dry = checked
        for key in ["output", "seconds"] { real[key] = nil; dry[key] = nil }
        #expect(NSDictionary(dictionary: real) == NSDictionary(dictionary: dry))
        #expect(FileManager.default.fileExists(atPath: outputFolder + "/.index.calldir.calldir.tmp.999999.abcdef"))
    }

    @Test("a bad list: the same diagnostics and exit status 1 as a compile, and nothing written")
    func sameFailure() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let list = scratch.write("list.txt", ["15552000003", "15552000001", "15552000001", "12"])
        let tmp = scratch.file("tmp")
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        let output = scratch.file("out.calldir")
        let check = try CLI.run(["compile", "--check", "--block", list, "-o", output], environment: ["TMPDIR": tmp])
        let compile = try CLI.run(["compile", "--block", list, "-o", output], environment: ["TMPDIR": tmp])
        #expect(check.status == 1 && compile.status == 1)
        #expect(check.stderr == compile.stderr)
        #expect(check.stderr.contains("list.txt:2: ") && check.stderr.contains("list.txt:4: "))
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(try Self.listing(tmp).isEmpty)
        // A budget the list does not fit: exit 1 as a compile, with --check as without.
        let good = scratch.write("good.txt", ["15552000001", "15552000002"])
        let over = try CLI.run(["compile", "--check", "--max-numbers", "1", "--block", good], environment: ["TMPDIR": tmp])
        #expect(over.status == 1 && over.stderr.contains("above --max-numbers 1"))
    }

    @Test("an unwritable scratch folder is an error (2) that names it, not a silent pass")
    func unwritableTemporaryFolder() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let list = scratch.write("list.txt", ["15552000001"])
        let result = try CLI.run(["compile", "--check", "--tmpdir", scratch.file("missing"), "--block", list])
        #expect(result.status == 2)
        #expect(result.stderr.contains(scratch.file("missing")) && result.stderr.contains("--tmpdir"))
        // Without --tmpdir the scratch file goes to $TMPDIR (as the sort's runs do).
        let viaEnvironment = try CLI.run(["compile", "--check", "--block", list], environment: ["TMPDIR": scratch.file("gone")])
        #expect(viaEnvironment.status == 2 && viaEnvironment.stderr.contains(scratch.file("gone")))
    }

    /// Issue 44 item 6: `021 560 12 3` (a Swiss number with a dropped digit) is a possible
    /// number, so a compile of a hand-kept list passes; docs/CI.md recommends `--valid-only`,
    /// which refuses it, with that example, in every workflow it shows.
    @Test("docs/CI.md recommends --valid-only for lists kept by hand, and its example holds")
    func validOnlyForHandKeptLists() throws {
        let doc = try String(contentsOfFile: CLI.packageRoot.path + "/docs/CI.md", encoding: .utf8)
        #expect(doc.contains("## Lists maintained by hand: `--valid-only`"))
        #expect(doc.contains("calldir compile --check --country 41 --valid-only --block lists/blocked/spam.txt"))
        #expect(doc.contains("'021 560 12 3' rejected: ... (not-valid)"))
        for example in ["LISTS: --country 41 --valid-only", "--country 41 --valid-only --sort", "args: [--country, \"41\", --valid-only,"] {
            #expect(doc.contains(example), "\(example)")
        }
        let scratch = TempFolder()
        defer { scratch.remove() }
        let list = scratch.write("spam.txt", "021 560 12 34\n021 560 12 3\n")
        let possible = try CLI.run(["compile", "--check", "--sort", "--country", "41", "--block", list])
        #expect(possible.status == 0, "\(possible.stderr)")  // what the doc warns about
        let valid = try CLI.run(["compile", "--check", "--sort", "--country", "41", "--valid-only", "--block", list])
        #expect(valid.status == 1)
        #expect(valid.stderr.contains(":2: '021 560 12 3' rejected: ") && valid.stderr.contains("(not-valid)"), "\(valid.stderr)")
    }
}
