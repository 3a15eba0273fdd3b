import Foundation
import Testing

/// The small things a user met (issue 47), each as the user met it, through the real `calldir`.
@Suite("What a user trips on")
struct UserTripsCLITests {
    @Test("a misspelt command names itself and the nearest command, exit 64 (was: Unknown option '--block')")
    func misspeltCommand() throws {
        let result = try CLI.run(["compil", "--block", "x.txt"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("'compil' is not a command; did you mean 'compile'?"), "\(result.stderr)")
        let far = try CLI.run(["zzz"])
        #expect(far.status == 64 && far.stderr.contains("'zzz' is not a command") && !far.stderr.contains("did you mean"), "\(far.stderr)")
    }

    @Test("calldir-serve --version prints the version calldir --version prints")
    func serveVersion() throws {
        let serve = URL(fileURLWithPath: CLI.binary).deletingLastPathComponent().appendingPathComponent("calldir-serve").path
        let version = try CLI.run(["--version"])
        let served = try CLI.run(["--version"], binary: serve)
        #expect(served.status == 0, "\(served.stderr)")
        #expect(!version.stdout.isEmpty && served.stdout == version.stdout)
    }

    @Test("--check --max-numbers names the list, not the default index path")
    func budgetNamesTheList() throws {
        let folder = TempFolder()
        let list = folder.write("b.txt", ["18005550100", "18005550101"])
        let result = try CLI.run(["compile", "--check", "--max-numbers", "1", "--block", list], environment: ["CALLDIR_INDEX": folder.file("default.calldir")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(list): more than 1 numbers read"), "\(result.stderr)")
        #expect(!result.stderr.contains("default.calldir"))
    }

    @Test("--error-format json: every line of stderr is a JSON object, the failure's summary included")
    func jsonStderrIsPure() throws {
        let folder = TempFolder()
        let list = folder.write("two.csv", ["18005550100,A", "18005550100,B"])
        let result = try CLI.run(["compile", "--identify", list, "-o", folder.file("x.calldir"), "--error-format", "json"])
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 2, "\(result.stderr)")
        for line in lines {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any], "not a JSON object: \(line)")
        }
        #expect(lines.last?.contains("\"error\":") == true)
    }

    @Test("the same number with two labels and no --dedupe says that the labels differ")
    func repeatWithAnotherLabel() throws {
        let folder = TempFolder()
        let list = folder.write("two.csv", ["18005550100,Acme", "18005550100,Globex"])
        let result = try CLI.run(["compile", "--identify", list, "-o", folder.file("x.calldir")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("repeats line 1 with another label ('Globex'; line 1 has 'Acme')"), "\(result.stderr)")
        #expect(result.stderr.contains("--dedupe keeps the first row's label"))
    }

    @Test("a Latin-1 list is told to convert to UTF-8 with the command, not to leave every row out")
    func latin1Hint() throws {
        let folder = TempFolder()
        let list = folder.write("latin.csv", Array("18005550100,Caf".utf8) + [0xE9, 0x0A])
        let result = try CLI.run(["compile", "--identify", list, "-o", folder.file("x.calldir")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("not UTF-8: convert it first, e.g. iconv -f latin1 -t utf-8"), "\(result.stderr)")
        #expect(!result.stderr.contains("--skip-invalid leaves them out"))
    }

    @Test("a TAB inside a quoted CSV label is reported as the label's, naming the character")
    func tabInQuotedLabel() throws {
        let folder = TempFolder()
        let list = folder.write("tab.csv", ["number,label", "18005550100,\"Acme\tCorp\""])
        let result = try CLI.run(["compile", "--identify", list, "-o", folder.file("x.calldir")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("its label 'Acme Corp' has U+0009 (a tab) at character 5"), "\(result.stderr)")
    }

    @Test("labels with bidirectional controls are refused (U+202E makes the number beside it read backwards)",
          arguments: ["\u{202E}", "\u{2066}", "\u{200F}", "\u{061C}", "\u{2028}"])
    func bidiControlsRefused(control: String) throws {
        let folder = TempFolder()
        let list = folder.write("bidi.csv", ["18005550100,Bank \(control)4321", "18005550101,Caf\u{E9} \u{1F469}\u{200D}\u{1F4BB}"])
        let result = try CLI.run(["compile", "--identify", list, "-o", folder.file("x.calldir"), "--skip-invalid"])
        #expect(result.status == 0, "\(result.stderr)")
        let lookup = try CLI.run(["lookup", "--index", folder.file("x.calldir"), "18005550100", "18005550101"])
        #expect(!lookup.stdout.unicodeScalars.contains { $0 == control.unicodeScalars.first! }, "\(lookup.stdout)")
        #expect(lookup.stdout.contains("\u{1F469}\u{200D}\u{1F4BB}"), "a zero-width joiner stays: \(lookup.stdout)")
    }
}
