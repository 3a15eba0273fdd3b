import Foundation
import CompileSupport
import Testing

/// The shell completions complete file names where a command takes a file (issue 47: bash
/// completed none of them), in bash, zsh and fish alike. Driven in a real bash: the script
/// `calldir --generate-completion-script bash` prints is sourced, COMP_WORDS set as bash sets
/// them for a half-typed line, and `_calldir` (given the command, the word and the one before,
/// as bash gives them to `complete -F`) asked for its COMPREPLY in a folder holding known
/// files. zsh and fish run too where installed (`apt-get install zsh fish`; skipped, not
/// failed, where not): zsh's completion system in a pty (Fixtures/zsh-complete.zsh), fish's
/// `complete -C`. Whatever is installed, the scripts are checked to name each shell's file
/// completion (`_files`, `-F`) for those arguments.
@Suite("Shell completions")
struct CompletionCLITests {
    /// The words bash offers after `line` (its last word half-typed) in `folder`.
    static func complete(_ line: [String], in folder: String) throws -> [String] {
        let script = try CLI.run(["--generate-completion-script", "bash"]).stdout
        let scriptPath = folder + "/calldir.bash"
        try script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        let words = line.map { "'\($0)'" }.joined(separator: " ")
        let shell = """
            cd '\(folder)' && source '\(scriptPath)' && COMP_WORDS=(\(words)) && COMP_CWORD=\(line.count - 1) \
            && COMP_LINE='\(line.joined(separator: " "))' && COMP_POINT=${#COMP_LINE} \
            && _calldir calldir '\(line[line.count - 1])' '\(line[line.count - 2])' && printf '%s\\n' "${COMPREPLY[@]}"
            """
        let text = try runBash(shell).output
        return text.split(separator: "\n").map(String.init).sorted()
    }

    /// The file arguments and what completing them offers in a folder holding `spam-list.txt`,
    /// `spam.calldir` and the folder `spool` (offered too, to walk into).
    static let fileCases: [([String], [String])] = [
        (["calldir", "compile", "--block", "sp"], ["spam-list.txt", "spam.calldir", "spool"]),
        (["calldir", "compile", "--block", "x.txt", "-o", "spam."], ["spam.calldir"]),
        (["calldir", "lookup", "--index", "spam.c"], ["spam.calldir"]),
        (["calldir", "inspect", "spam.c"], ["spam.calldir"]),
    ]

    static func folderWithFiles() throws -> TempFolder {
        let folder = TempFolder()
        _ = folder.write("spam-list.txt", "18005550100\n")
        _ = folder.write("spam.calldir", "")
        try FileManager.default.createDirectory(atPath: folder.file("spool"), withIntermediateDirectories: false)
        return folder
    }

    /// Writes `calldir --generate-completion-script SHELL` into `folder`; its path.
    static func script(_ shell: String, in folder: String) throws -> String {
        let path = folder + "/calldir." + shell
        try CLI.run(["--generate-completion-script", shell]).stdout.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The words offered, without fish's descriptions or a folder's trailing `/`, once each.
    static func words(_ output: String) -> [String] {
        Set(output.split(separator: "\n").map { line in
            let word = line.split(separator: "\t", maxSplits: 1).first.map(String.init) ?? ""
            return word.hasSuffix("/") ? String(word.dropLast()) : word
        }.filter { !$0.isEmpty }).sorted()
    }

    static func installed(_ shell: String) -> Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/" + shell) }

    @Test("zsh completes file names after --block, -o, lookup --index and inspect FILE", .enabled(if: installed("zsh")),
          arguments: fileCases)
    func zshFiles(line: [String], expected: [String]) throws {
        let folder = try Self.folderWithFiles()
        let script = try Self.script("zsh", in: folder.path)
        let capture = HelpSnapshotTests.fixtures.appendingPathComponent("zsh-complete.zsh").path
        let output = try runBash("timeout 60 zsh -f '\(capture)' '\(line.joined(separator: " "))' '\(script)'", in: folder.path).output
        #expect(Self.words(output) == expected, "\(line)")
    }

    @Test("fish completes file names after --block, -o, lookup --index and inspect FILE", .enabled(if: installed("fish")),
          arguments: fileCases)
    func fishFiles(line: [String], expected: [String]) throws {
        let folder = try Self.folderWithFiles()
        let script = try Self.script("fish", in: folder.path)
        let output = try runBash("fish --no-config -c 'source \(script); complete -C \"\(line.joined(separator: " "))\"'", in: folder.path).output
        #expect(Self.words(output) == expected, "\(line)")
    }

    @Test("the zsh and fish scripts name their shell's file completion for every file argument, installed or not")
    func scriptsNameFileCompletion() throws {
        let folder = TempFolder()
        let zsh = try String(contentsOfFile: Self.script("zsh", in: folder.path), encoding: .utf8)
        let fish = try String(contentsOfFile: Self.script("fish", in: folder.path), encoding: .utf8)
        for (function, argument) in [("_calldir_compile", "--block"), ("_calldir_compile", "--output"),
                                     ("_calldir_lookup", "--index"), ("_calldir_inspect", ":file:")] {
            let body = zsh.components(separatedBy: "\n\(function)() {").dropFirst().first?.components(separatedBy: "\n}\n").first ?? ""
            #expect(body.split(separator: "\n").contains { $0.contains(argument) && $0.contains(":_files'") }, "zsh \(function) \(argument)")
        }
        for (command, argument) in [("compile", "-l 'block'"), ("compile", "-l 'output'"), ("lookup", "-l 'index'"),
                                    ("inspect", "positional \"calldir inspect\"")] {
            #expect(fish.split(separator: "\n").contains { line in
                line.hasPrefix("complete -c 'calldir'") && line.contains("\"calldir \(command)\"") && line.contains(argument)
                    && (line.hasSuffix(" -rF") || line.hasSuffix(" -F"))
            }, "fish \(command) \(argument)")
        }
    }

    @Test("bash completes file names after --block, -o, lookup --index and inspect FILE; folders after --tmpdir",
          arguments: [
            (["calldir", "compile", "--block", "sp"], ["spam-list.txt", "spam.calldir", "spool"]),  // folders too, to walk into
            (["calldir", "compile", "--block", "x.txt", "-o", "spam."], ["spam.calldir"]),
            (["calldir", "lookup", "--index", "spam.c"], ["spam.calldir"]),
            (["calldir", "inspect", "spam.c"], ["spam.calldir"]),
            (["calldir", "compile", "--tmpdir", "sp"], ["spool"]),
          ])
    func filesComplete(line: [String], expected: [String]) throws {
        let folder = try Self.folderWithFiles()
        #expect(try Self.complete(line, in: folder.path) == expected, "\(line)")
    }
}
