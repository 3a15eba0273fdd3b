import Foundation
import Testing
@testable import CallDir
@testable import CallDirReader
import CompileSupport
import TestSupport

@Suite("CallKit validation")
struct ValidationTests {
    func problems(block: [String] = [], identify: [String] = [], output: String,
                  configure: (inout CompileOptions) -> Void = { _ in }) -> (error: CallDirError?, diagnostics: [Diagnostic]) {
        var options = CompileOptions(output: output)
        options.blockSources = block.map { .file($0) }
        options.identifySources = identify.map { .file($0) }
        configure(&options)
        var diagnostics: [Diagnostic] = []
        do {
            try compile(options, diagnostics: &diagnostics)
            return (nil, diagnostics)
        } catch {
            return (error as? CallDirError, diagnostics)
        }
    }

    @Test("out of order names file, line, values, rule and CallKit error 3")
    func outOfOrder() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let path = folder.write("blocked.txt", "14085555555\n18775555555\n18005555555\n")
        let (error, diagnostics) = problems(block: [path], output: folder.file("i.calldir"))
        #expect(error?.code == .invalidList)
        #expect(diagnostics.map(\.description) == [
            "\(path):3: 18005555555 is not above 18775555555 (line 2): entries out of order (CallKit error 3); --sort accepts any order",
        ])
        #expect(diagnostics.first?.callKitError == 3)
        #expect(!FileManager.default.fileExists(atPath: folder.file("i.calldir")))
    }

    @Test("a repeat is CallKit error 4, with CRLF input and comments in between")
    func duplicate() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let path = folder.write("blocked.txt", "# list\r\n14085555555\r\n\r\n# again\r\n14085555555\r\n")
        let (_, diagnostics) = problems(block: [path], output: folder.file("i.calldir"))
        #expect(diagnostics.map(\.description) == [
            "\(path):5: 14085555555 repeats line 2: duplicate entries (CallKit error 4); --dedupe keeps one of each",
        ])
        #expect(diagnostics.first?.rule == "duplicate-entries")
    }

    @Test("files of one kind merge in order; a break across files names both places")
    func acrossFiles() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let a = folder.write("a.txt", "14085555555\n18005555555\n")
        let b = folder.write("b.txt", "16505555555\n")
        let (_, diagnostics) = problems(block: [a, b], output: folder.file("i.calldir"))
        #expect(diagnostics.map(\.description) == [
            "\(b):1: 16505555555 is not above 18005555555 (\(a):2): entries out of order (CallKit error 3); --sort accepts any order",
        ])
        let c = folder.write("c.txt", "18885555555\n")
        let summary = try compile(block: [a, c], output: folder.file("ok.calldir"))
        #expect(summary.blockedNumbers == 3)
    }

    @Test("order is checked per kind; a number in both kinds is allowed and counted")
    func perKind() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let block = folder.write("b.txt", "18005555555\n18775555555\n")
        let identify = folder.write("i.csv", "14085555555,Early\n18775555555,Telemarketer\n")
        let summary = try compile(block: [block], identify: [identify], output: folder.file("i.calldir"))
        #expect(summary.numbersInBoth == 1)
        let result = try CallDirIndex(path: folder.file("i.calldir")).lookup(18_775_555_555)
        #expect(result.blocked == .exact && result.label == "Telemarketer" && result.action == .block)
    }

    @Test("labels: empty, too long, control characters, invalid UTF-8 are rejected with their line")
    func labels() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let long = String(repeating: "x", count: IndexFormat.maxLabelBytes + 1)
        var text = Data("14085555555,\n14085555556,\(long)\n14085555557,bad\u{7}bell\n14085555558,".utf8)
        text.append(contentsOf: [0xC3, 0x28, 0x0A])
        let path = folder.file("i.csv")
        _ = FileManager.default.createFile(atPath: path, contents: text)
        let (_, diagnostics) = problems(identify: [path], output: folder.file("i.calldir"))
        // `14085555555,` has a label field, left empty: empty-label, not missing-label.
        #expect(diagnostics.map(\.rule) == ["empty-label", "label-too-long", "label-control-character", "label-invalid-utf8"])
        #expect(diagnostics.map(\.line) == [1, 2, 3, 4])
    }

    @Test("--max-errors stops early; numbers out of E.164 bounds are rejected")
    func maxErrors() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let path = folder.write("b.txt", "1234567890123456\n12\n3\n4\n")
        let (error, diagnostics) = problems(block: [path], output: folder.file("i.calldir")) { $0.maxErrors = 2 }
        #expect(diagnostics.count == 2)
        #expect(diagnostics.map(\.rule) == ["too-long", "too-short"])
        #expect(error?.message.contains("--max-errors 2") == true)
    }

    @Test("a failed compile leaves an existing index byte for byte unchanged and no temp file")
    func atomicFailure() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let good = folder.write("good.txt", "14085555555\n")
        let output = folder.file("index.calldir")
        try compile(block: [good], output: output)
        let before = fileBytes(output)
        let bad = folder.write("bad.txt", "18005555555\n14085555555\n")
        let (error, _) = problems(block: [bad], output: output)
        #expect(error?.code == .invalidList)
        #expect(fileBytes(output) == before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".tmp.") }
        #expect(leftovers.isEmpty)
    }

    @Test("--dedupe collapses repeats, first label wins, conflicts are counted and listed")
    func dedupe() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let path = folder.write("i.csv", "14085555555,First\n14085555555,First\n14085555555,Second\n18005555555,X\n")
        let rejects = folder.file("rejects.tsv")
        let summary = try compile(identify: [path], output: folder.file("i.calldir")) {
            $0.dedupe = true
            $0.rejectsPath = rejects
        }
        #expect(summary.identifiedNumbers == 2 && summary.duplicates == 2 && summary.labelConflicts == 1)
        #expect(summary.rejected == ["duplicate": 1, "label-conflict": 1])
        #expect(try CallDirIndex(path: folder.file("i.calldir")).lookup(14_085_555_555).label == "First")
        let listed = try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\n")
        #expect(listed.contains("\(path):3\tlabel-conflict\t14085555555,Second"))
    }
}
