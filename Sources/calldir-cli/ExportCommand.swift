import ArgumentParser
import CallDir
import CallDirLookup
import CallDirReader
import CallDirWriter

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write an index as a list in another tool's format.",
        discussion: """
        Streams the index (ranges and labels in memory, numbers never) to -o, published \
        atomically (temporary file, fsync, rename), or to stdout with '-o -' or no -o. A \
        character device or FIFO at -o is written into once complete, never replaced; a \
        folder or socket is refused. Labels are escaped by UTF-8 bytes; a damaged label is an \
        error (exit 2), never written empty.

        Formats: text (one number, pattern or FIRST-LAST range per line, or number<TAB>label), \
        csv (number / number,label with a header), vcard (4.0: one card per label, numbers as \
        TEL), saracroche (JSON {"version","name","patterns":[{"name","action","pattern"}]}, \
        both kinds), begone (XML plist), and for Apple Live Caller ID Lookup (iOS 18+) \
        live-caller-id (the InputIdentities text protobuf ConstructDatabase reads), \
        live-caller-id-block and live-caller-id-identity (the two KeywordDatabase files it \
        writes, so a server can skip that step).

        text, csv, saracroche (with compile --list) and begone compile back into the same index \
        (compile them without --sort; vcard needs --sort). Ranges are written as '#' patterns \
        where exact; vcard and live-caller-id list every number, up to --max-numbers.

        Examples:
          calldir export --format text --kind block -o blocked.txt
          calldir export --index spam.calldir --format csv > callers.csv
          calldir export --format saracroche --name "My list" -o list.json
          calldir compile --list list.json -o copy.calldir
          calldir export --format live-caller-id-block -o block.pb
        """
    )

    @Option(help: ArgumentHelp("The index (default: $CALLDIR_INDEX or ~/.local/share/calldir/index.calldir).", valueName: "file"), completion: .file())
    var index: String?

    @Option(help: ArgumentHelp("The format to write (see above).", valueName: "format"))
    var format: ExportFormat

    @Option(name: [.customShort("o"), .long], help: ArgumentHelp("Where to write the export. Use '-' (the default) for stdout.", valueName: "file"), completion: .file())
    var output: String?

    @Option(help: ArgumentHelp("Which entries: needed by the one-kind formats (text, csv, vcard, begone) when the index has both.", valueName: "kind"))
    var kind: ExportKind?

    @Option(help: ArgumentHelp("text and csv: keep writes '#' patterns where exact, else FIRST-LAST; expand lists every number.", valueName: "mode"))
    var ranges: ExportRanges = .keep

    @Option(name: .customLong("max-numbers"), help: "Refuse an export that lists more numbers than this once ranges are expanded.")
    var maxNumbers: Int64 = 10_000_000

    @Option(help: "The list's name: Saracroche's name, and the card or title of blocking entries.")
    var name = "calldir"

    @Option(name: .customLong("cache-minutes"), help: "Live Caller ID cache_expiry_minutes of every identity (0: not set).")
    var cacheMinutes: UInt32 = 0

    @Option(help: ArgumentHelp("Live Caller ID category of every identity.", valueName: "category"))
    var category: IdentityCategory = .unspecified

    @Flag(name: [.customShort("q"), .long], help: "No summary on stderr.")
    var quiet = false

    func run() throws {
        try OutputGuard.refuse(outputs: [(output, "the export")], inputs: [index ?? DefaultIndex.path])
        TemporaryFiles.installInterruptCleanup()
        var options = ExportOptions(format: format)
        options.kind = kind
        options.ranges = ranges
        options.maxNumbers = maxNumbers
        options.name = name
        options.cacheExpiryMinutes = cacheMinutes
        options.category = category
        do {
            let summary = try Exporter(index: CallDirIndex(path: index ?? DefaultIndex.path), options: options).run(to: output)
            if !quiet && output != nil && output != "-" {
                Terminal.printError("exported \(formatCount(summary.records)) records as \(format.rawValue) to \(output!): \(formatCount(summary.bytes)) bytes")
            }
        } catch let error as CallDirError where error.code == .usage && (error.path == nil || error.path != output) {
            // A flag that does not fit the index (64); an unusable output path is exit 2, as for every command.
            Terminal.error(error.description)
            throw ExitCode(.usage)
        } catch {
            throw Terminal.fail(error)
        }
    }
}

extension ExportFormat: ExpressibleByArgument {}
extension ExportKind: ExpressibleByArgument {}
extension ExportRanges: ExpressibleByArgument {}
extension IdentityCategory: ExpressibleByArgument {}
