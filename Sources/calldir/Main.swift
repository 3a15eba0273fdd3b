#if canImport(Glibc)
import Glibc
#endif
import CallDir
import CallDirReader

/// Entry point. A plain `calldir lookup` (numbers, --index, --country, --json, the caller-ID
/// policy options) is parsed by
/// hand and answered without setting up swift-argument-parser, whose reflection-based set-up
/// costs about 2 ms: most of a one-shot lookup's wall time. Anything else, including --help
/// and every error, goes through `CallDirCommand`, which documents and validates it.
@main
enum Main {
    static func main() {
        if let fast = FastLookup(arguments: Array(CommandLine.arguments.dropFirst())) { fast.run() }
        CallDirCommand.main()
    }
}

struct FastLookup {
    var index: String?
    var country: Int?
    var json = false
    var numbers: [String] = []
    var checksNANP = true
    var policy = CallerIDPolicy()

    init(index: String?, country: Int?, json: Bool, numbers: [String]) {
        self.index = index
        self.country = country
        self.json = json
        self.numbers = numbers
    }

    /// Nil unless the arguments are a well-formed lookup this parser fully understands.
    init?(arguments: [String]) {
        guard arguments.first == "lookup" else { return nil }
        var rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            switch argument {
            case "--json": json = true
            case "--index": guard let value = rest.popFirst() else { return nil }; index = value
            case "--country":
                guard let value = rest.popFirst(), let code = Int(value), (1...999).contains(code) else { return nil }
                country = code
            case "--anonymous": guard let value = rest.popFirst().flatMap(CallerIDAction.init) else { return nil }; policy.withheld = value
            case "--invalid": guard let value = rest.popFirst().flatMap(CallerIDAction.init) else { return nil }; policy.invalid = value
            case "--no-nanp-check": checksNANP = false
            case "-": numbers.append(argument)
            default:
                if argument.hasPrefix("-") { return nil }  // --help, --index=..., typos: the full parser explains
                numbers.append(argument)
            }
        }
        if numbers.isEmpty || (numbers.contains("-") && numbers.count > 1) { return nil }
    }

    /// Answers, then exits with the status `LookupCommand` documents. The index is still
    /// mapped at exit: the kernel drops the mapping with the process, which costs less than
    /// `munmap` (no TLB flush for a mapping about to go), ~5% of a one-shot lookup.
    func run() -> Never {
        var lookup: Lookup?
        let status = answer(keeping: &lookup)
        withExtendedLifetime(lookup) { exit(status) }
    }

    private func answer(keeping kept: inout Lookup?) -> Int32 {
        let lookup: Lookup
        do {
            lookup = try Lookup(index: CallDirIndex(path: index ?? DefaultIndex.path),
                                normalizer: NumberNormalizer(country: country, checksNANP: checksNANP),
                                policy: policy, json: json)
        } catch {
            _ = Terminal.fail(error)
            return 2
        }
        kept = lookup
        if numbers == ["-"] {
            do {
                try lookup.answerLines(path: "-")
            } catch {
                _ = lookup.out.close()
                _ = Terminal.fail(error)
                return 2
            }
        } else {
            for number in numbers { lookup.answer(number) }
        }
        guard lookup.out.close() else { return 2 }
        return lookup.failed ? 2 : (lookup.unlisted ? 1 : 0)
    }
}
