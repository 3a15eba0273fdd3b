import ArgumentParser
import CallDir
import CallDirLookup
import CallDirReader
import CallDirPatch
import CallDirWriter

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

        With --report it also prints, on stdout, a review of the change for a pull request \
        (--format text, markdown or json), streamed like the delta: per kind the numbers \
        added and removed and the label changes, counted as a device sees them (ranges by \
        size; a device update removes removed + relabeled entries and adds added + \
        relabeled, as `simulate --from` counts), the top label changes with example \
        numbers, ranges added, removed and resized, and the entries a device loads before \
        and after, against --max-numbers. Without -o no delta is written.

        Exit status: 0 written; 1 NEW needs more entries than --max-numbers; 2 an index is \
        unreadable or damaged; 64 bad usage.

        Examples:
          calldir diff yesterday.calldir today.calldir -o today.delta
          calldir diff main.calldir pr.calldir --report --format markdown \\
              --max-numbers 2000000
        """
    )

    @Argument(help: ArgumentHelp("The index the device or server holds now.", valueName: "old"), completion: .file())
    var old: String

    @Argument(help: ArgumentHelp("The index to update it to.", valueName: "new"), completion: .file())
    var new: String

    @Option(name: [.customShort("o"), .long], help: ArgumentHelp("Where to write the delta (optional with --report).", valueName: "file"), completion: .file())
    var output: String?

    @OptionGroup var review: ReviewOptions

    @OptionGroup var report: DeltaReport

    func validate() throws {
        if output == nil, !review.report { throw ValidationError("Give -o FILE for the delta, or --report for a review of the change.") }
        if review.report, report.json { throw ValidationError("--json prints the delta's summary on stdout; with --report use --format json.") }
        if !review.report, review.maxNumbers != nil { throw ValidationError("--max-numbers is the budget of --report: add --report.") }
    }

    func run() throws {
        try OutputGuard.refuse(outputs: [(output, "the delta")], inputs: [old, new])
        TemporaryFiles.installInterruptCleanup()
        var overBudget = false
        do {
            let (oldIndex, newIndex) = try (CallDirIndex(path: old), CallDirIndex(path: new))
            if let output {
                let summary = try Differ.diff(old: oldIndex, new: newIndex, output: output, temporaryFolder: report.tmpdir)
                try report.print(summary, verb: "diff")
            }
            if review.report {
                let made = try DiffReport.make(old: oldIndex, new: newIndex, maxNumbers: review.maxNumbers)
                var out = StdoutBuffer()
                out.write(review.render(made))
                guard out.close() else { throw ExitCode(.error) }
                overBudget = made.budgetState == .over
            }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw Terminal.fail(error)
        }
        if overBudget {
            Terminal.error("\(new) needs more device entries than --max-numbers \(review.maxNumbers!)")
            throw ExitCode(.negativeAnswer)
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

    @Argument(help: ArgumentHelp("The index the delta was made from.", valueName: "old"), completion: .file())
    var old: String

    @Argument(help: ArgumentHelp("The delta file.", valueName: "delta"), completion: .file())
    var delta: String

    @Option(name: [.customShort("o"), .long], help: ArgumentHelp("Where to write the new index.", valueName: "file"), completion: .file())
    var output: String

    @OptionGroup var report: DeltaReport

    func run() throws {
        try OutputGuard.refuse(outputs: [(output, "the new index")], inputs: [old, delta])
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
    @Option(help: ArgumentHelp("Folder for the temporary spill of labels.", valueName: "folder"), completion: .directory)
    var tmpdir = "/tmp"

    @Flag(help: "Print the summary as JSON on stdout.")
    var json = false

    @Flag(name: [.customShort("q"), .long], help: "No summary.")
    var quiet = false

    func print(_ s: DeltaSummary, verb: String) throws {
        if json {
            var out = StdoutBuffer()
            out.write(s.infoJSON.rendered() + "\n")
            guard out.close() else { throw ExitCode(.error) }
        } else if !quiet {
            Terminal.printError("\(verb): \(s.path): -\(formatCount(s.removedBlocked)) +\(formatCount(s.addedBlocked)) blocking, "
                                + "-\(formatCount(s.removedIdentified)) +\(formatCount(s.addedIdentified)) identification, "
                                + "-\(s.removedRanges) +\(s.addedRanges) ranges; \(formatCount(s.bytes)) bytes in "
                                + "\(formatFixed(s.seconds, 2)) s")
        }
    }
}
