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
        #expect(try CLI.run(["compile", "-q", "--block", list, "-o", index]).status == 0)
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
