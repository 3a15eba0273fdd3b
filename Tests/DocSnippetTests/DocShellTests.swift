import Foundation
import Testing
import CompileSupport
import TestSupport

/// The docs' shell examples, run: every `$ command` line of a ```` ```sh ```` block in README.md,
/// FORMAT.md, FEED-PROTOCOL.md and docs/ runs in bash, in a folder holding `data/` and the
/// sample index that scripts/demo compiles (`index.calldir`) with the built `calldir` first on
/// PATH, beside a daemon serving that index as `calldir serve --anonymous block` would (the
/// examples' `127.0.0.1:8080` and `localhost:8080` are pointed at it). What the doc shows under
/// a command is what it must print, white space aside (the docs wrap long answers: a line that
/// starts with a space continues the one before); a blank line ends the output. Issue 47: docs/SERVE.md showed
/// `911` answering `too-short` long after the daemon said `emergency-number`.
@Suite("The docs' shell examples")
struct DocShellTests {
    struct Example {
        var doc: String
        var line: Int
        var command: String
        var expected: String
    }

    static var buildFolder: URL {
        if let explicit = ProcessInfo.processInfo.environment["CALLDIR_BIN"] {
            return URL(fileURLWithPath: explicit).deletingLastPathComponent()
        }
        return packageRoot.appendingPathComponent(".build/debug")
    }

    /// The `$` examples of one Markdown text.
    static func examples(in text: String, doc: String) -> [Example] {
        var found: [Example] = []
        var inShell = false, inFence = false
        var current: Example?
        func close() {
            if let example = current { found.append(example) }
            current = nil
        }
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw)
            if line.hasPrefix("```") {
                if inFence { close() }
                inShell = !inFence && (line == "```sh" || line == "```console")
                inFence.toggle()
                continue
            }
            guard inFence, inShell else { continue }
            if line.hasPrefix("$ ") {
                close()
                current = Example(doc: doc, line: number + 1, command: String(line.dropFirst(2)), expected: "")
            } else if var example = current, example.command.hasSuffix("\\"), example.expected.isEmpty {
                example.command += "\n" + line
                current = example
            } else if line.isEmpty {
                close()
            } else if var example = current {
                example.expected += example.expected.isEmpty || line.hasPrefix(" ") ? line : "\n" + line
                current = example
            }
        }
        return found
    }

    static func allExamples() throws -> [Example] {
        try DocLinks.readDocs(under: packageRoot).sorted { $0.key < $1.key }.flatMap { examples(in: $0.value, doc: $0.key) }
    }

    @Test("the parser takes commands, wrapped answers and continued commands as the docs write them")
    func parsesTheDocsShape() {
        let text = "```sh\n$ curl -s a \\\n       b\n{\"x\":1,\n \"y\":2}\n\n$ true\n```\n```swift\n$ not shell\n```\n"
        let found = Self.examples(in: text, doc: "t.md")
        #expect(found.count == 2)
        #expect(found.first?.command == "curl -s a \\\n       b")
        #expect(found.first?.expected == "{\"x\":1, \"y\":2}")  // compared without white space
        #expect(found.last?.line == 7 && found.last?.expected == "")
    }

    @Test("every $ example of the docs prints what the doc shows")
    func examplesRun() throws {
        let examples = try Self.allExamples()
        #expect(examples.count >= 7, "expected docs/SERVE.md's examples, found \(examples.count)")
        let bin = Self.buildFolder
        guard FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("calldir-serve").path) else {
            Issue.record("no calldir-serve in \(bin.path): swift build first")
            return
        }
        let folder = TempFolder()
        defer { folder.remove() }
        let data = packageRoot.appendingPathComponent("data")
        try FileManager.default.copyItem(at: data, to: URL(fileURLWithPath: folder.file("data")))
        _ = folder.write("calls.tsv", ["+1 800 555 5555\tMon 09:12", "12125550000\tMon 09:40"])
        let path = bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let environment = ["PATH": path, "CALLDIR_INDEX": folder.file("index.calldir")]
        // scripts/demo's compile.
        let compiled = try runBash("calldir compile -q --block data/blocked.txt --identify data/identified.csv --allow data/allowed.txt -o index.calldir",
                                     in: folder.path, environment: environment)
        try #require(compiled.status == 0, "\(compiled.output)")
        let port = 20_000 + Int.random(in: 0..<20_000)
        let daemon = Process()
        daemon.executableURL = bin.appendingPathComponent("calldir-serve")
        daemon.arguments = ["--index", folder.file("index.calldir"), "--port", "\(port)", "--anonymous", "block"]
        daemon.standardError = FileHandle.nullDevice
        daemon.standardOutput = FileHandle.nullDevice
        try daemon.run()
        defer { daemon.terminate(); daemon.waitUntilExit() }
        var up = false
        for _ in 0..<100 where !up {
            up = (try? runBash("curl -sf http://127.0.0.1:\(port)/healthz", in: folder.path, environment: environment).status) == 0
            if !up { usleep(50_000) }
        }
        try #require(up, "the daemon did not answer on port \(port)")
        for example in examples {
            let command = example.command.replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:\(port)")
                .replacingOccurrences(of: "localhost:8080", with: "127.0.0.1:\(port)")
            let result = try runBash(command, in: folder.path, environment: environment)
            let output = result.output.hasSuffix("\n") ? String(result.output.dropLast()) : result.output
            #expect(result.status == 0, "\(example.doc):\(example.line): `\(example.command)` exited \(result.status): \(output)")
            // White space aside: the docs wrap long answers where the program prints none.
            #expect(output.filter { !$0.isWhitespace } == example.expected.filter { !$0.isWhitespace },
                    "\(example.doc):\(example.line): `\(example.command)` printed\n\(output)\nwhere the doc shows\n\(example.expected)")
        }
    }
}
