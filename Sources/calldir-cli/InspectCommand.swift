import ArgumentParser
import CallDir
import CallDirLookup
import CallDirReader
import CallDirPatch

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show an index's (or a delta's) format version, counts, sections and build metadata.",
        discussion: "Example: calldir inspect --json spam.calldir"
    )

    @Argument(help: ArgumentHelp("The index (default: $CALLDIR_INDEX or ~/.local/share/calldir/index.calldir).", valueName: "file"), completion: .file())
    var file: String?

    @Flag(help: "Print as JSON.")
    var json = false

    func run() throws {
        let path = file ?? DefaultIndex.path
        var out = StdoutBuffer()
        do {
            let file = try MappedFile(path: path)  // mapped once, read as whichever kind it is
            if DeltaFile.looksLikeDelta(file) {
                let delta = try DeltaFile(file: file)
                out.write((json ? delta.infoJSON.rendered() : delta.infoText) + "\n")
            } else {
                let index = try CallDirIndex(file: file)
                let types = try IndexTypeCounts(index)
                out.write((json ? index.infoJSON(types: types).rendered() : index.infoText(types: types)) + "\n")
            }
        } catch { throw Terminal.fail(error) }
        guard out.close() else { throw ExitCode(.error) }
    }
}

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check every checksum and structural invariant of an index (or a delta).",
        discussion: """
        Exit status: 0 intact; 1 damaged (the message names the damaged section); 2 the file
        cannot be read. Example: calldir verify spam.calldir && cp spam.calldir /srv/

        With --feed DIR --trusted-key KEY, checks a whole feed folder (`calldir publish`) before
        upload, as a follower would: signature, expiry, every file's size and SHA-256, the
        index and each delta; exit status as for `calldir update`.
        """
    )

    @Option(help: ArgumentHelp("Check this feed folder instead of an index.", valueName: "dir"), completion: .directory)
    var feed: String?

    @Option(name: .customLong("trusted-key"), help: ArgumentHelp("With --feed: a public key the feed may be signed with (repeatable).", valueName: "key"))
    var trustedKeys: [String] = []

    @Option(name: .customLong("root-version"), help: ArgumentHelp("With --feed: the key rotation the --trusted-key set belongs to (N: the keys root/N.json names).", valueName: "n"))
    var rootVersion = 1

    @Argument(help: ArgumentHelp("The index (default: $CALLDIR_INDEX or ~/.local/share/calldir/index.calldir).", valueName: "file"), completion: .file())
    var file: String?

    @Flag(help: "Print the result as JSON.")
    var json = false

    func run() throws {
        if feed != nil {
            guard file == nil, !trustedKeys.isEmpty else {
                throw ValidationError("--feed takes no index argument, and needs at least one --trusted-key.")
            }
            guard rootVersion >= 1 else { throw ValidationError("--root-version must be 1 or more.") }
            FeedExec.run(.verifyFeed, skipping: 2)
        }
        let path = file ?? DefaultIndex.path
        do {
            let summary: String, checksum: String
            let file = try MappedFile(path: path)
            if DeltaFile.looksLikeDelta(file) {
                let delta = try DeltaFile(file: file, verify: true)
                checksum = hex(delta.checksum)
                summary = "ok: \(path): delta of \(counted(delta.summary.changedEntries, "number")) and "
                    + "\(counted(delta.removedRangeCount + delta.addedRangeCount, "range")) from \(hex(delta.oldChecksum)) to \(hex(delta.newChecksum)), checksum \(checksum)"
            } else {
                let index = try CallDirIndex(file: file, verify: true)
                checksum = index.checksumText
                summary = "ok: \(path): \(index.sizeText), checksum \(checksum)"
            }
            var out = StdoutBuffer()
            out.write(json ? JSONValue.object([("path", .string(path)), ("ok", .bool(true)),
                                               ("checksum", .string(checksum))]).rendered() + "\n" : summary + "\n")
            guard out.close() else { throw ExitCode(.error) }
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
