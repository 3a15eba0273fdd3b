#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import CallDir
import CallDirLookup
import CallDirReader
import CallDirOptions
import CallDirWriter

struct CompileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compile",
        abstract: "Validate number lists and compile them into an index.",
        discussion: """
        Lists are read in order. Without --sort every kind must be strictly ascending across \
        all its files, exactly as CallKit requires (error 3 entriesOutOfOrder, error 4 \
        duplicateEntries), and each problem is reported as FILE:LINE: reason.

        Formats are recognised by content: plain text (one number per line, '#' comments), \
        CSV or TAB 'number,label' rows (a header row selects columns), vCard, JSON arrays of \
        {pattern or start/end, name} or Saracroche's {"name", "patterns": [...]} (--list \
        reads both kinds from one such file by each object's "action"), XML plists (Begone); \
        any of them gzip-compressed. A '#' \
        in a number is a wildcard digit (33162######) and FIRST-LAST is a range; both are \
        stored as ranges, never expanded.

        The index is written to a temporary file, fsynced and renamed, after the --rejects \
        list: on failure nothing is published and an existing index is left as it was. \
        Temporaries carry the PID of their compile (.NAME.calldir.tmp.PID.*, \
        calldir-sort-PID-*); a compile removes those left by compiles that were killed. \
        An output that is a character device or a FIFO (-o /dev/null) is written into once \
        complete, never replaced; a folder or a socket is refused.

        Examples:
          calldir compile --block data/blocked.txt --identify data/identified.csv
          calldir compile --country 1 --sort --dedupe --skip-invalid \\
              --rejects rejects.tsv --block complaints.csv.gz -o ftc.calldir
          calldir compile --block-sql 'spam.db:SELECT number FROM spam' \\
              -o spam.calldir
          calldir compile --check --error-format github --block lists/*.txt
        """
    )

    @Option(name: [.customShort("b"), .long], parsing: .upToNextOption,
            help: ArgumentHelp("Blocking lists. Use '-' for stdin.", valueName: "file"), completion: .file())
    var block: [String] = []

    @Option(name: [.customShort("i"), .long], parsing: .upToNextOption,
            help: ArgumentHelp("Identification lists of 'number,label' rows. Use '-' for stdin.", valueName: "file"), completion: .file())
    var identify: [String] = []

    @Option(name: .long, parsing: .upToNextOption,
            help: ArgumentHelp("Numbers and ranges that must never be blocked; removed from blocking entries.", valueName: "file"), completion: .file())
    var allow: [String] = []

    @Option(name: .long, parsing: .upToNextOption,
            help: ArgumentHelp("JSON lists whose objects say their kind (Saracroche: \"action\": \"block\" or \"identify\"); objects without an action are blocked.", valueName: "file"), completion: .file())
    var list: [String] = []

    @Option(name: .customLong("block-sql"), help: ArgumentHelp("Blocking numbers from SQLite: 'PATH:SELECT number FROM ...'.", valueName: "path:query"))
    var blockSQL: [String] = []

    @Option(name: .customLong("identify-sql"), help: ArgumentHelp("Identification entries from SQLite: 'PATH:SELECT number, label FROM ...'.", valueName: "path:query"))
    var identifySQL: [String] = []

    @Option(name: [.customShort("o"), .long, .customLong("index")],
            help: ArgumentHelp("Where to write the index; --index is the same option (default: $CALLDIR_INDEX or ~/.local/share/calldir/index.calldir).", valueName: "file"), completion: .file())
    var output: String?

    @Option(help: ArgumentHelp(CountryOption.help, valueName: "code"))
    var country: CountryOption?

    @Flag(help: "Accept every number CallKit accepts (7 to 15 digits, not starting with 0) without checking its country's rules (calling code, length, first digit, North American area code), so spoofed caller IDs can be blocked.")
    var lenient = false

    @Flag(name: .customLong("valid-only"), help: "Keep only numbers libphonenumber calls valid (is_valid_number); by default every possible number is kept. Each other one is a problem row (not-valid).")
    var validOnly = false

    @Option(parsing: .upToNextOption, help: ArgumentHelp("Keep only valid numbers of these types (implies --valid-only): \(CompileOptions.numberTypeNames.filter { $0 != "fixed-line-or-mobile" }.joined(separator: ", ")); fixed-line and mobile keep numbers that may be either.", valueName: "type"))
    var types: [String] = []

    @Flag(help: "Without --country: the digits are E.164 on purpose. A list whose numbers look national (North American numbers without their 1) is otherwise an error.")
    var international = false

    /// The former name of `--lenient`, kept for scripts.
    @Flag(name: .customLong("no-nanp-check"), help: .hidden)
    var noNANPCheck = false

    @Option(help: "Input format for every file: auto, text, vcard, json or plist.")
    var format: InputFormat = .auto

    @Option(name: .customLong("number-column"), help: "CSV header name of the number column (default: number, pattern, phone...).")
    var numberColumn: String?

    @Option(name: .customLong("label-column"), help: "CSV header name of the label column (default: label, name, title...).")
    var labelColumn: String?

    @Flag(help: "Accept lists in any order: sort them with an external merge sort in bounded memory.")
    var sort = false

    @Flag(help: "Collapse repeated numbers into one entry (the first source row wins its label); each repeat is counted.")
    var dedupe = false

    @Flag(name: .customLong("skip-invalid"), help: "Count and skip rows that cannot be made E.164 numbers, instead of failing.")
    var skipInvalid = false

    @Option(help: ArgumentHelp("Write every row that did not become an entry (source:line, reason, text) to this TSV file.", valueName: "file"), completion: .file())
    var rejects: String?

    @Option(name: .customLong("max-errors"), help: "Stop after this many problems.")
    var maxErrors = 20

    @Option(help: "Peak memory for a compile with --sort, e.g. 64M or 1G: the sort's runs get what is left after about 14 MiB for the process (22 MiB with labels).")
    var memory = "64M"

    @Option(help: "Folder for --sort's temporary runs (default: $TMPDIR, else /tmp).", completion: .directory)
    var tmpdir: String?

    @Flag(help: "Check only: read every source and apply every rule as a compile does, write no index (nor any temporary file that outlives the run); same exit status and summary. -o is not needed.")
    var check = false

    @OptionGroup var errorOutput: ErrorOutputOptions

    @Option(name: .customLong("max-numbers"), help: "Fail when a device would have to load more entries than this (ranges counted by size).")
    var maxNumbers: Int64?

    @Option(name: .customLong("min-numbers"), help: "Fail when a device would load fewer entries than this (ranges counted by size): a truncated download is not published.")
    var minNumbers: Int64?

    @Flag(name: .customLong("allow-empty"), help: "Publish an index without entries (by default an empty result fails: it would unblock every caller).")
    var allowEmpty = false

    @Option(name: .customLong("build-time"), help: "Unix time to record as the build time (default: $SOURCE_DATE_EPOCH, else none, so output is reproducible).")
    var buildTime: Int64?

    @Flag(help: "Print the summary as JSON on stdout.")
    var json = false

    @Flag(name: [.customShort("q"), .long], help: "No summary or progress on stderr.")
    var quiet = false

    func validate() throws {
        if list.contains("-") { throw ValidationError("--list is read once per kind, so it cannot be stdin ('-'): save it to a file.") }
        if parseSize(memory) == nil { throw ValidationError("--memory takes a size such as 64M or 1G, not '\(memory)'.") }
        if maxErrors < 1 { throw ValidationError("--max-errors must be at least 1.") }
        if let minNumbers, minNumbers < 0 { throw ValidationError("--min-numbers must be at least 0.") }
        if let minNumbers, let maxNumbers, minNumbers > maxNumbers {
            throw ValidationError("--min-numbers \(minNumbers) is above --max-numbers \(maxNumbers).")
        }
        for name in types.flatMap({ $0.split(separator: ",") }) where !CompileOptions.numberTypeNames.contains(String(name)) {
            throw ValidationError("--types takes \(CompileOptions.numberTypeNames.joined(separator: ", ")), not '\(name)'.")
        }
        let stdinUses = (block + identify + allow).filter { $0 == "-" }.count
        if stdinUses > 1 { throw ValidationError("Only one list can be read from stdin ('-').") }
    }

    func run() throws {
        // Checked here, not in validate(): swift-argument-parser reports an unknown option
        // ('--blok', with its "did you mean") only after validate() has passed.
        if block.isEmpty && identify.isEmpty && list.isEmpty && blockSQL.isEmpty && identifySQL.isEmpty {
            throw ValidationError("Nothing to compile: give --block, --identify, --list, --block-sql or --identify-sql.")
        }
        // SQLite sources are 'PATH:QUERY'; the path is the input.
        let sqlPaths = (blockSQL + identifySQL).map { String($0.prefix { $0 != ":" }) }
        try OutputGuard.refuse(outputs: [(check ? nil : output ?? DefaultIndex.path, "the index"), (rejects, "the rejects list"),
                                         (errorOutput.errorFile, "the error report")],
                               inputs: block + identify + allow + list + sqlPaths)
        TemporaryFiles.installInterruptCleanup()
        let compiler: Compiler
        let diagnostics = DiagnosticOutput(errorOutput)
        var problems: [Diagnostic] = []
        let keepsProblems = json
        // The default index's folders, created for the temporary beside it, go again on failure.
        let createdFolders = output == nil && !check ? DefaultIndex.createFolders(for: DefaultIndex.path) : []
        do {
            compiler = try Compiler(options: options(), onDiagnostic: { diagnostic in
                if keepsProblems { problems.append(diagnostic) }
                diagnostics.report(diagnostic)
            }, onProgress: quiet ? nil : { rows in Terminal.progress("\(formatCount(rows)) rows read") })
        } catch {
            DefaultIndex.removeEmptyFolders(createdFolders)
            _ = diagnostics.finish(error: error)
            if json { printFailureJSON(error, problems: [], tally: ProblemTally()) }
            throw diagnostics.fail(error)
        }
        let summary: CompileSummary
        do {
            summary = try compiler.run()
            Terminal.clearProgress()
        } catch {
            Terminal.clearProgress()
            DefaultIndex.removeEmptyFolders(createdFolders)
            _ = diagnostics.finish(error: error)
            if json { printFailureJSON(error, problems: problems, tally: compiler.problemTally) }
            throw diagnostics.fail(error, negative: [.invalidList, .limitExceeded])
        }
        if let status = diagnostics.finish(error: nil) { throw ExitCode(status) }
        report(summary)
    }

    /// `--json` on failure: one object, `ok: false`, with the problems and their tallies.
    private func printFailureJSON(_ error: Error, problems: [Diagnostic], tally: ProblemTally) {
        let message = (error as? CallDirError)?.description ?? "\(error)"
        let object = JSONValue.object([
            ("ok", .bool(false)),
            ("error", .string(message)),
            ("code", .string((error as? CallDirError).map { "\($0.code)" } ?? "internal")),
            ("problems", .array(problems.map { p in
                .object([
                    ("file", .string(p.source)),
                    ("line", .int(Int64(p.line))),
                    ("text", p.text.map { .string($0) } ?? .null),
                    ("reason", .string(p.rule)),
                    ("message", .string(p.message)),
                    ("callKitError", p.callKitError.map { .int(Int64($0)) } ?? .null),
                ])
            })),
            ("tallies", tally.json),
            // A national list (`NationalListCheck`) or an index left empty: the error is the advice.
            ("advice", .string(tally.total == 0 || message.contains("the list looks national: ") ? message : tally.advice)),
        ])
        var out = StdoutBuffer()
        out.write(object.rendered() + "\n")
        _ = out.close()
    }

    private func options() throws -> CompileOptions {
        let path = output ?? DefaultIndex.path
        var options = CompileOptions(output: path)
        var textOptions = TextListOptions()
        textOptions.numberColumn = numberColumn
        textOptions.labelColumn = labelColumn
        let file = { (path: String) in SourceSpec.file(path, format: format, options: textOptions) }
        options.blockSources = block.map(file) + list.map { .list($0) } + blockSQL.map { .sqlite($0) }
        options.identifySources = identify.map(file) + list.map { .list($0) } + identifySQL.map { .sqlite($0) }
        options.allowSources = allow.map(file)
        options.country = country?.code
        options.region = country?.region
        options.lenient = lenient || noNANPCheck
        options.international = international
        options.validOnly = validOnly
        options.types = types.flatMap { $0.split(separator: ",").map(String.init) }
        options.maxErrors = maxErrors
        options.skipInvalid = skipInvalid
        options.rejectsPath = rejects
        options.sort = sort
        options.dedupe = dedupe
        options.memoryBudget = parseSize(memory)!
        options.temporaryFolder = tmpdir ?? getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        options.check = check
        options.maxNumbers = maxNumbers
        options.minNumbers = minNumbers
        options.allowEmpty = allowEmpty
        options.buildTime = buildTime ?? getenv("SOURCE_DATE_EPOCH").flatMap { Int64(String(cString: $0)) } ?? 0
        return options
    }

    private func report(_ s: CompileSummary) {
        if json {
            var out = StdoutBuffer()
            out.write(s.json(ok: true).rendered() + "\n")
            _ = out.close()  // the index is published; a lost summary is reported on stderr
        }
        // Warnings are not the summary: -q keeps them.
        for warning in s.warnings { Terminal.printError("warning: " + warning) }
        guard !quiet else { return }
        // One vocabulary: numbers, ranges, device entries; then each kind's share.
        let ranges = s.blockedRanges + s.identifiedRanges
        var line = "\(check ? "checked" : "compiled") "
            + sizeText(numbers: s.entries, ranges: ranges, deviceEntries: s.deviceEntries)
        var kinds: [String] = []
        if s.blockedNumbers + s.blockedRanges > 0 {
            kinds.append("blocked \(counted(s.blockedNumbers, "number")) and \(counted(s.blockedRanges, "range"))")
        }
        if s.identifiedNumbers + s.identifiedRanges > 0 {
            kinds.append("identified \(counted(s.identifiedNumbers, "number")) and \(counted(s.identifiedRanges, "range"))"
                         + " (\(counted(s.labels, "label"))\(s.numbersInBoth > 0 ? ", \(counted(s.numbersInBoth, "number")) in both kinds" : ""))")
        }
        if !kinds.isEmpty { line += ": " + kinds.joined(separator: ", ") }
        line += check ? "; nothing written: \(counted(s.fileBytes, "byte")) as an index" : "; into \(s.output): \(counted(s.fileBytes, "byte"))"
        // Bytes per number says something only where numbers are most of the file: no ranges,
        // and enough numbers that the header and directories do not dominate.
        if ranges == 0, s.entries >= 1_000 { line += " (\(formatFixed(s.bytesPerEntry, 2)) bytes/number)" }
        line += " in \(formatFixed(s.seconds, 2)) s"
        Terminal.printError(line)
        if s.rejectedTotal > 0 {
            let reasons = s.rejected.sorted { $0.key < $1.key }.map { "\($0.key) \(formatCount($0.value))" }.joined(separator: ", ")
            Terminal.printError("left out \(formatCount(s.rejectedTotal)) of \(formatCount(s.rowsRead)) rows: \(reasons)"
                                + (rejects == nil ? " (list them with --rejects FILE)" : " (listed in \(rejects!))"))
        }
    }
}

extension InputFormat: ExpressibleByArgument {}
