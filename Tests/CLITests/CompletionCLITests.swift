import Foundation
import CompileSupport
import Testing

/// The shell completions complete file names where a command takes a file (issue 47: bash
/// completed none of them). Driven in a real bash: the script `calldir
/// --generate-completion-script bash` prints is sourced, COMP_WORDS set as bash sets them for
/// a half-typed line, and `_calldir` (given the command, the word and the one before, as bash
/// gives them to `complete -F`) asked for its COMPREPLY in a folder holding known files.
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

    @Test("bash completes file names after --block, -o, lookup --index and inspect FILE; folders after --tmpdir",
          arguments: [
            (["calldir", "compile", "--block", "sp"], ["spam-list.txt", "spam.calldir", "spool"]),  // folders too, to walk into
            (["calldir", "compile", "--block", "x.txt", "-o", "spam."], ["spam.calldir"]),
            (["calldir", "lookup", "--index", "spam.c"], ["spam.calldir"]),
            (["calldir", "inspect", "spam.c"], ["spam.calldir"]),
            (["calldir", "compile", "--tmpdir", "sp"], ["spool"]),
          ])
    func filesComplete(line: [String], expected: [String]) throws {
        let folder = TempFolder()
        _ = folder.write("spam-list.txt", "18005550100\n")
        _ = folder.write("spam.calldir", "")
        try FileManager.default.createDirectory(atPath: folder.file("spool"), withIntermediateDirectories: false)
        #expect(try Self.complete(line, in: folder.path) == expected, "\(line)")
    }
}
