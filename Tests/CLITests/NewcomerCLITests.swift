import Foundation
import Testing

/// What a new user meets first: the bare command, a misspelt option, a missing sibling
/// executable, a failed demo build, Excel's semicolon CSV, and one vocabulary for counts.
@Suite("A newcomer's first commands")
struct NewcomerCLITests {
    @Test("bare calldir is a usage error: help on stderr, nothing on stdout, exit 64")
    func bareCommand() throws {
        let result = try CLI.run([])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("USAGE: calldir <subcommand>"))
        #expect(result.stderr.contains("Start here (from any folder):"))
    }

    @Test("the help's start-here commands work in an empty folder")
    func startHereFromAnywhere() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let help = try CLI.run(["--help"]).stdout
        let lines = help.split(separator: "\n").drop { !$0.contains("Start here") }.dropFirst().prefix(3)
        #expect(lines.count == 3)
        let bin = URL(fileURLWithPath: CLI.binary).deletingLastPathComponent().path
        let script = "set -e; cd '\(scratch.path)'; PATH='\(bin)':$PATH; "
            + lines.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "; ")
        let (status, stderr) = try runShell(script)
        #expect(status == 0, "\(script)\n\(stderr)")
    }

    @Test("a misspelt option is named, with a suggestion, before any other complaint")
    func misspeltOption() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let list = scratch.write("b.txt", "18005555555\n")
        let result = try CLI.run(["compile", "--blok", list, "-o", scratch.file("i.calldir")])
        #expect(result.status == 64)
        #expect(result.stderr.contains("Unknown option '--blok'. Did you mean '--block'?"), "\(result.stderr)")
        #expect(!result.stderr.contains("Nothing to compile"))
    }

    @Test("--country takes a calling code that exists or a region: 999 is refused at once, saying what it wants")
    func unknownCountry() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let list = scratch.write("b.txt", "2015550100\n")
        let refused = try CLI.run(["compile", "--country", "999", "--block", list, "-o", scratch.file("i.calldir")])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("The value '999' is invalid for '--country <code>'"), "\(refused.stderr)")
        #expect(refused.stderr.contains("A calling code (1, 33, 41) or region (US, FR, CH)"), "\(refused.stderr)")
        let region = try CLI.run(["compile", "-q", "--country", "US", "--block", list, "-o", scratch.file("i.calldir")])
        #expect(region.status == 0, "\(region.stderr)")
    }

    @Test("serve without its sibling executables names every missing one at once")
    func missingSiblings() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let lone = scratch.file("calldir")
        try FileManager.default.copyItem(atPath: CLI.binary, toPath: lone)
        let result = try CLI.run(["serve", "--index", scratch.file("i.calldir")], binary: lone)
        #expect(result.status == 2)
        #expect(result.stderr.contains("calldir-cli must be installed next to calldir; also missing: calldir-serve"),
                "\(result.stderr)")
    }

    @Test("scripts/demo stops with a non-zero exit when the build fails, naming the step")
    func demoStopsOnBuildFailure() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let fakeSwift = scratch.write("swift", "#!/bin/sh\necho 'error: the compiler crashed (fake)' >&2\nexit 1\n")
        chmod(fakeSwift, 0o755)
        let demo = CLI.packageRoot.appendingPathComponent("scripts/demo").path
        let (status, stderr) = try runShell("SWIFT='\(fakeSwift)' CALLDIR_INDEX='\(scratch.file("d.calldir"))' '\(demo)' >/dev/null")
        #expect(status != 0)
        #expect(stderr.contains("demo: building calldir failed"), "\(stderr)")
        #expect(stderr.contains("the compiler crashed (fake)"))
        #expect(!FileManager.default.fileExists(atPath: scratch.file("d.calldir")))
    }

    @Test("semicolon-separated CSV (Excel in French, German and Swiss locales), with and without header")
    func semicolonCSV() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let headed = scratch.write("fr.csv", "numéro;nom\n+33 1 23 45 67 89;Démarchage, énergie\n+33612345678;Arnaque\n")
        let bare = scratch.write("ch.csv", "41215550101;Werbung\n41215550102;Umfrage\n")
        let index = scratch.file("i.calldir")
        let compiled = try CLI.run(["compile", "-q", "--number-column", "numéro", "--label-column", "nom",
                                    "--identify", headed, "-o", index])
        #expect(compiled.status == 0, "\(compiled.stderr)")
        let answers = try CLI.run(["lookup", "--index", index, "33123456789", "33612345678"])
        #expect(answers.stdout == "+33123456789  identified: Démarchage, énergie\n+33612345678  identified: Arnaque\n")
        let second = try CLI.run(["compile", "-q", "--identify", bare, "-o", index])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try CLI.run(["lookup", "--index", index, "41215550102"]).stdout == "+41215550102  identified: Umfrage\n")
    }

    @Test("a header without a number column names --number-column")
    func headerErrorNamesTheOption() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let list = scratch.write("l.csv", "telefono,nombre\n34911234567,x\n")
        let result = try CLI.run(["compile", "--identify", list, "-o", scratch.file("i.calldir")])
        #expect(result.status != 0)
        #expect(result.stderr.contains("--number-column NAME"), "\(result.stderr)")
    }

    @Test("verify, inspect and simulate count in one vocabulary, with plurals; simulate estimates device time")
    func vocabulary() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let list = scratch.write("b.txt", "18005555555\n1900555####\n")
        let index = scratch.file("i.calldir")
        let compiled = try CLI.run(["compile", "--block", list, "-o", index])
        #expect(compiled.stderr.hasPrefix("compiled 1 number, 1 range (10,001 device entries): blocked 1 number and 1 range; "
                                          + "into \(index): "), "\(compiled.stderr)")
        #expect(!compiled.stderr.contains("bytes/"), "bytes per number means nothing on a file of one number and a range")
        let over = try CLI.run(["compile", "--block", list, "--max-numbers", "5000", "-o", scratch.file("o.calldir")])
        #expect(over.status == 1)
        #expect(over.stderr.contains("a device would have to load 10,001 entries (ranges expanded), above --max-numbers 5,000"),
                "\(over.stderr)")
        let verified = try CLI.run(["verify", index])
        #expect(verified.stdout.hasPrefix("ok: \(index): 1 number, 1 range (10,001 device entries), checksum "),
                "\(verified.stdout)")
        let inspected = try CLI.run(["inspect", index]).stdout
        #expect(inspected.contains("blocked          1 number, 1 range covering 10,000 numbers"), "\(inspected)")
        let simulated = try CLI.run(["simulate", index]).stdout
        #expect(simulated.contains("on a device: about 0.0 s for 10,001 entries at CallKit's measured ~220,000 entries/s"),
                "\(simulated)")
    }
}

/// What people paste into `calldir lookup`, and the messages of rows a compile rejects.
@Suite("Pasted numbers and rejected rows")
struct PastedNumberCLITests {
    static func index(_ scratch: TempFolder) throws -> String {
        let index = scratch.file("i.calldir")
        let list = scratch.write("b.txt", "14692576503\n442079460959\n")
        let compiled = try CLI.run(["compile", "-q", "--block", list, "-o", index])
        #expect(compiled.status == 0, "\(compiled.stderr)")
        return index
    }

    @Test("a number in quotes copied from a spreadsheet is looked up, as compile reads it")
    func quoted() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let result = try CLI.run(["lookup", "--index", try Self.index(scratch), "\"+14692576503\""])
        #expect(result.stdout == "+14692576503  blocked\n")
        #expect(result.status == 0)
    }

    @Test("a number split by the shell into several arguments gets a hint to quote it; stdout keeps one answer each")
    func splitArguments() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let result = try CLI.run(["lookup", "--index", try Self.index(scratch), "+44", "20", "7946", "0959"])
        #expect(result.stdout.split(separator: "\n").count == 4)
        #expect(result.stderr.contains("hint: the 4 arguments are one number, +442079460959, when read together: "
                                       + "quote it: calldir lookup '+44 20 7946 0959'"), "\(result.stderr)")
    }

    /// Issue 44: an extension is read apart, as libphonenumber's parse reads it (`extension`):
    /// the number is looked up.
    @Test("an extension is read apart and the number looked up; another character is named with its code point")
    func extensionAndCharacter() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = try Self.index(scratch)
        let plain = try CLI.run(["lookup", "--index", index, "+1 469 257 6503"])
        let ext = try CLI.run(["lookup", "--index", index, "+1 469 257 6503 x12"])
        #expect(ext.stdout == plain.stdout && ext.status == plain.status, "\(ext.stdout) \(ext.stderr)")
        let json = try CLI.run(["lookup", "--json", "--index", index, "+1 (469) 257-6503 ext. 7"])
        #expect(json.stdout.contains(#""number":"+14692576503""#), "\(json.stdout)")
        #expect(json.stderr.isEmpty)
        let letter = try CLI.run(["lookup", "--index", index, "1469257650O"])
        #expect(letter.stderr.contains("hint: '1469257650O': 'O' (U+004F) is not a digit or phone punctuation"), "\(letter.stderr)")
    }

    @Test("a list without labels given to --identify suggests --block; a label too long gives its length")
    func labelMessages() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let numbers = scratch.write("n.txt", "14692576503\n")
        let missing = try CLI.run(["compile", "--identify", numbers, "-o", scratch.file("i.calldir")])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("numbers without labels are a blocking list: give it with --block"), "\(missing.stderr)")
        let long = scratch.write("l.csv", "14692576503,\(String(repeating: "é", count: 200))\n")
        let tooLong = try CLI.run(["compile", "--identify", long, "-o", scratch.file("i.calldir")])
        #expect(tooLong.status == 1)
        #expect(tooLong.stderr.contains("UTF-8 bytes; this one has 400 (label-too-long)"), "\(tooLong.stderr)")
    }
}
