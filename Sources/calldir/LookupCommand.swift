#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import CallDir
import CallDirReader

struct LookupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lookup",
        abstract: "Say whether numbers are blocked, identified (with their label), both, or unknown.",
        discussion: """
        Numbers may be formatted ('+1 (800) 555-5555', '00 41 21 560 12 34'), or national \
        with --country. With '-', numbers are read from stdin, one per line, and answered in \
        order. --json prints one JSON object per number (JSON Lines).

        Exit status, like grep: 0 every number is listed, 1 some number is not, 2 an error \
        (a missing or damaged index, or an input that is not a phone number).

        Examples:
          calldir lookup 18005555555
          calldir lookup --json '+1 877 555 5555' 12125550000
          cut -f1 calls.tsv | calldir lookup --index spam.calldir - > answers.txt
        """
    )

    @Option(help: ArgumentHelp("The index to read (default: $CALLDIR_INDEX or ~/.local/share/calldir/index.calldir).", valueName: "file"))
    var index: String?

    @Option(help: ArgumentHelp("Calling code for national numbers, e.g. 1 or 41.", valueName: "code"))
    var country: Int?

    @Flag(help: "Print one JSON object per number.")
    var json = false

    @Argument(help: ArgumentHelp("Numbers to look up, or '-' to read them from stdin.", valueName: "number"))
    var numbers: [String]

    func validate() throws {
        if numbers.isEmpty { throw ValidationError("Give at least one number, or '-' to read numbers from stdin.") }
        if numbers.contains("-") && numbers.count > 1 { throw ValidationError("'-' reads every number from stdin; give no other numbers.") }
    }

    func run() throws {
        let status = FastLookup(index: index, country: country, json: json, numbers: numbers).run()
        if status != 0 { throw ExitCode(status) }
    }
}

/// Answers numbers one by one, writing to a buffered stdout.
final class Lookup {
    let index: CallDirIndex
    let normalizer: NumberNormalizer
    let json: Bool
    var out = StdoutBuffer()
    var unlisted = false
    var failed = false

    init(index: CallDirIndex, normalizer: NumberNormalizer, json: Bool) {
        self.index = index
        self.normalizer = normalizer
        self.json = json
    }

    func answer(_ input: String) {
        switch normalizer.normalize(input) {
        case .success(.number(let number)):
            answer(number: number)
        case .success(.range):
            invalid(input, reason: "range", explanation: "lookup takes single numbers, not patterns or ranges")
        case .failure(let reason):
            invalid(input, reason: reason.rawValue, explanation: reason.explanation)
        }
    }

    func answer(number: Int64) {
        do {
            write(try index.lookup(number))
        } catch {
            failed = true
            out.flush()
            _ = Terminal.fail(error)
        }
    }

    func write(_ result: LookupResult) {
        if !result.isListed { unlisted = true }
        if json {
            out.write(result.json.rendered() + "\n")
        } else {
            out.writeLine(result)
        }
    }

    private func invalid(_ input: String, reason: String, explanation: String) {
        failed = true
        if json {
            out.write(JSONValue.object([("input", .string(input)), ("error", .string(reason)),
                                        ("message", .string(explanation))]).rendered() + "\n")
        } else {
            out.flush()
            Terminal.error("'\(input)' is not a phone number: \(explanation) (\(reason))")
        }
    }
}
