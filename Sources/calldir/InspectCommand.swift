import ArgumentParser
import CallDir
import CallDirReader

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show an index's format version, counts, sections and build metadata.",
        discussion: "Example: calldir inspect --json spam.calldir"
    )

    @Argument(help: ArgumentHelp("The index (default: $CALLDIR_INDEX or ~/.local/share/calldir/index.calldir).", valueName: "file"))
    var file: String?

    @Flag(help: "Print as JSON.")
    var json = false

    func run() throws {
        let index: CallDirIndex
        do { index = try CallDirIndex(path: file ?? DefaultIndex.path) } catch { throw Terminal.fail(error) }
        var out = StdoutBuffer()
        out.write((json ? index.infoJSON.rendered() : index.infoText) + "\n")
        guard out.close() else { throw ExitCode(2) }
    }
}

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check every checksum and structural invariant of an index.",
        discussion: """
        Exit status: 0 intact; 1 damaged (the message names the damaged section); 2 the file
        cannot be read. Example: calldir verify spam.calldir && cp spam.calldir /srv/
        """
    )

    @Argument(help: ArgumentHelp("The index (default: $CALLDIR_INDEX or ~/.local/share/calldir/index.calldir).", valueName: "file"))
    var file: String?

    @Flag(help: "Print the result as JSON.")
    var json = false

    func run() throws {
        let path = file ?? DefaultIndex.path
        do {
            let index = try CallDirIndex(path: path, verify: true)
            var out = StdoutBuffer()
            let summary = "ok: \(path): \(index.blockedCount + index.identifiedCount) entries, checksum \(index.checksumText)"
            out.write(json ? JSONValue.object([("path", .string(path)), ("ok", .bool(true)),
                                               ("checksum", .string(index.checksumText))]).rendered() + "\n" : summary + "\n")
            guard out.close() else { throw ExitCode(2) }
        } catch let error as CallDirError {
            if json {
                var out = StdoutBuffer()
                out.write(JSONValue.object([("path", .string(path)), ("ok", .bool(false)), ("code", .string(error.code.rawValue)),
                                            ("message", .string(error.description))]).rendered() + "\n")
                out.flush()
            }
            throw Terminal.fail(error, negative: [.corruptIndex, .unsupportedVersion])
        }
    }
}
