import Foundation
import Testing

/// Small edges where calldir used to tell a newcomer something untrue or leave a trace: the
/// 011 prefix, a failed compile's default folder, a tiny index's size figure, an empty label,
/// a range of impossible numbers, and `export -o DIR`'s exit status.
@Suite("Honest answers at the edges")
struct HonestEdgesCLITests {
    @Test("011 without --country is told that 011 means --country 1")
    func elevenPrefix() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = scratch.file("i.calldir")
        #expect(try CLI.run(["compile", "-q", "--block", scratch.write("b.txt", "+442079460960\n"), "-o", index]).status == 0)
        let bare = try CLI.run(["lookup", "--index", index, "011 44 20 7946 0960"])
        #expect(bare.stdout == "011 44 20 7946 0960  unknown (not a number: missing-country-code)\n")
        #expect(bare.stderr.contains("011 is North America's international prefix: pass --country 1"), "\(bare.stderr)")
        #expect(!bare.stderr.contains("(41, 33...)"))
        let us = try CLI.run(["lookup", "--index", index, "--country", "1", "011 44 20 7946 0960"])
        #expect(us.stdout == "+442079460960  blocked\n", "\(us.stderr)")
    }

    @Test("a failed compile to the default index leaves no folder; a good one creates it")
    func defaultFolder() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let home = scratch.file("home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let environment = ["HOME": home, "XDG_DATA_HOME": "", "CALLDIR_INDEX": ""]
        let bad = try CLI.run(["compile", "--block", scratch.write("bad.txt", "+41212130911\n+41 21 abc\n")], environment: environment)
        #expect(bad.status == 1)
        #expect(!FileManager.default.fileExists(atPath: home + "/.local"), "a failed compile created \(home)/.local")
        let good = try CLI.run(["compile", "-q", "--block", scratch.write("good.txt", "+41212130911\n")], environment: environment)
        #expect(good.status == 0, "\(good.stderr)")
        #expect(FileManager.default.fileExists(atPath: home + "/.local/share/calldir/index.calldir"))
    }

    @Test("inspect of a tiny index gives no bytes/number figure; of 1,000 numbers it does")
    func tinyIndexSize() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        #expect(try CLI.run(["compile", "-q", "--block", scratch.write("one.txt", "+41212130911\n"), "-o", scratch.file("one.calldir")]).status == 0)
        let one = try CLI.run(["inspect", scratch.file("one.calldir")])
        #expect(!one.stdout.contains("bytes/number)"), "\(one.stdout)")
        #expect(one.stdout.contains("too few numbers for a bytes/number figure"))
        let many = (0..<1_000).map { "+4121213\(1000 + $0)" }.joined(separator: "\n") + "\n"
        #expect(try CLI.run(["compile", "-q", "--block", scratch.write("many.txt", many), "-o", scratch.file("many.calldir")]).status == 0)
        #expect(try CLI.run(["inspect", scratch.file("many.calldir")]).stdout.contains(" bytes/number)"))
    }

    @Test("an empty label is empty-label; only a row without a label field is missing-label")
    func emptyLabel() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let list = scratch.write("id.txt", "+41212130911,\n+41212130912\t\n+41212130913, \n+41212130914\n")
        let result = try CLI.run(["compile", "--identify", list, "--error-format", "json", "-o", scratch.file("i.calldir")])
        #expect(result.status == 1)
        let rules = result.stderr.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }.compactMap { $0["rule"] as? String }
        #expect(rules == ["empty-label", "empty-label", "empty-label", "missing-label"], "\(result.stderr)")
    }

    @Test("a range of impossible numbers is refused with the rule its end breaks, not the range rule")
    func impossibleRange() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let list = scratch.write("r.txt", "+41 21 213 091 - +41 21 213 099\n+4930123456 - +49301234567\n+41212130999 - +41212130900\n")
        let result = try CLI.run(["compile", "--block", list, "-o", scratch.file("r.calldir")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("the first end of the range, '+41 21 213 091', is not a possible number: +41 numbers have 9 or 12 digits after 41; this has 8"),
                "\(result.stderr)")
        #expect(result.stderr.contains("(too-short) (invalid-range)"))
        #expect(result.stderr.contains("the ends of a range must have as many digits: +4930123456 has 10, +49301234567 has 11"))
        #expect(result.stderr.contains("the first end of a range must not be above the last: +41212130999 is above +41212130900"))
        #expect(!result.stderr.contains("two numbers of equal length, first <= last"))
    }

    @Test("export -o DIR fails like every other output failure: exit 2")
    func exportToFolder() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = scratch.file("i.calldir")
        #expect(try CLI.run(["compile", "-q", "--block", scratch.write("b.txt", "+41212130911\n"), "-o", index]).status == 0)
        let folder = scratch.file("out")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let result = try CLI.run(["export", "--index", index, "--format", "text", "-o", folder])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains(folder))
    }
}
