import ArgumentParser
import CallDir
import CallDirLookup
import CallDirReader

struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Write the delta that turns one index into another.",
        discussion: """
        The delta holds, per kind, the numbers and ranges removed and added and the labels of \
        what was added (a changed label is a removal and an addition, as CallKit models it), \
        plus the checksums of OLD and NEW; FORMAT.md, "Delta file", has the layout. It is made \
        by streaming both indexes (memory does not grow with their size) and published \
        atomically (a character device or FIFO at -o is written into, never replaced). Ship it instead of NEW; `calldir patch OLD DELTA -o NEW` rebuilds NEW byte \
        for byte, and `calldir inspect`/`verify` read deltas too.

        Exit status: 0 written; 2 an index is unreadable or damaged; 64 bad usage.

        Example:
          calldir diff yesterday.calldir today.calldir -o today.delta
        """
    )

    @Argument(help: ArgumentHelp("The index the device or server holds now.", valueName: "old"))
    var old: String

    @Argument(help: ArgumentHelp("The index to update it to.", valueName: "new"))
    var new: String

    @Option(name: [.customShort("o"), .long], help: ArgumentHelp("Where to write the delta.", valueName: "file"))
    var output: String

    @OptionGroup var report: DeltaReport

    func run() throws {
        TemporaryFiles.installInterruptCleanup()
        do {
            let summary = try Differ.diff(old: CallDirIndex(path: old), new: CallDirIndex(path: new), output: output,
                                          temporaryFolder: report.tmpdir)
            try report.print(summary, verb: "diff")
        } catch {
            throw Terminal.fail(error)
        }
    }
}

struct PatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "patch",
        abstract: "Rebuild the new index from the old one and a delta.",
        discussion: """
        Applies a delta made by `calldir diff OLD NEW` to OLD and writes NEW, byte for byte: \
        the result's checksum must be the one the delta names, or nothing is written. A delta \
        made from another OLD is refused before anything is written. The output is published \
        atomically (temporary file, fsync, rename); a character device or FIFO at -o is \
        written into once complete, never replaced.

        Exit status: 0 written; 1 the delta does not fit OLD (delta-mismatch); 2 a file is \
        unreadable or damaged; 64 bad usage.

        Example:
          calldir patch yesterday.calldir today.delta -o today.calldir
        """
    )

    @Argument(help: ArgumentHelp("The index the delta was made from.", valueName: "old"))
    var old: String

    @Argument(help: ArgumentHelp("The delta file.", valueName: "delta"))
    var delta: String

    @Option(name: [.customShort("o"), .long], help: ArgumentHelp("Where to write the new index.", valueName: "file"))
    var output: String

    @OptionGroup var report: DeltaReport

    func run() throws {
        TemporaryFiles.installInterruptCleanup()
        do {
            let summary = try Patcher.patch(old: CallDirIndex(path: old), delta: DeltaFile(path: delta), output: output,
                                            temporaryFolder: report.tmpdir)
            try report.print(summary, verb: "patch")
        } catch {
            throw Terminal.fail(error, negative: [.deltaMismatch])
        }
    }
}

/// The options diff and patch share, and their summary line (stderr) or JSON object (stdout).
struct DeltaReport: ParsableArguments {
    @Option(help: ArgumentHelp("Folder for the temporary spill of labels.", valueName: "folder"))
    var tmpdir = "/tmp"

    @Flag(help: "Print the summary as JSON on stdout.")
    var json = false

    @Flag(name: [.customShort("q"), .long], help: "No summary.")
    var quiet = false

    func print(_ s: DeltaSummary, verb: String) throws {
        if json {
            var out = StdoutBuffer()
            out.write(s.infoJSON.rendered() + "\n")
            guard out.close() else { throw ExitCode(2) }
        } else if !quiet {
            Terminal.printError("\(verb): \(s.path): -\(formatCount(s.removedBlocked)) +\(formatCount(s.addedBlocked)) blocking, "
                                + "-\(formatCount(s.removedIdentified)) +\(formatCount(s.addedIdentified)) identification, "
                                + "-\(s.removedRanges) +\(s.addedRanges) ranges; \(formatCount(s.bytes)) bytes in "
                                + "\(formatFixed(s.seconds, 2)) s")
        }
    }
}
