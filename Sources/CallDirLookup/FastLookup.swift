#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CallDirNumbers
import CallDirReader

/// A plain `calldir lookup` (numbers, --index, --country, --json, the caller-ID policy
/// options), parsed by hand and answered with nothing but the reader library. The `calldir`
/// front answers these itself; `calldir-cli lookup` comes here after swift-argument-parser
/// has checked its options, with `-` (numbers from stdin) answered by `stream`.
package struct FastLookup {
    package var index: String?
    /// `--shards MANIFEST`: the shards `calldir shard` wrote answer instead of an index.
    package var shards: String?
    package var country: Int?
    /// The region `--country` named, read with its own rules (`CountryOption.region`).
    package var region: String?
    package var json = false
    package var numbers: [String] = []
    package var lenient = false
    package var policy = CallerIDPolicy()
    /// The user's layer (`--personal`, `--contacts`), applied to every answer.
    package var overlay: PersonalOverlay?

    package init(index: String?, country: Int?, region: String? = nil, json: Bool, numbers: [String]) {
        self.index = index
        self.country = country
        self.region = region
        self.json = json
        self.numbers = numbers
    }

    /// Nil unless the arguments are a well-formed lookup this parser fully understands (--help
    /// and every error go to the full parser). `-` alone (numbers from stdin) only when
    /// `acceptsStdin`: the front leaves it to `calldir-cli`, whose line reader handles gzip.
    package init?(arguments: [String], acceptsStdin: Bool = false) {
        guard arguments.first == "lookup" else { return nil }
        var rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            switch argument {
            case "--json": json = true
            case "--index": guard let value = rest.popFirst() else { return nil }; index = value
            case "--country":
                guard let value = rest.popFirst(), let code = CountryTable.callingCode(parsing: value) else { return nil }
                country = code
                region = Int(value.hasPrefix("+") ? String(value.dropFirst()) : value) == nil ? value.uppercased() : nil
            case "--anonymous": guard let value = rest.popFirst().flatMap(CallerIDAction.init) else { return nil }; policy.withheld = value
            case "--invalid": guard let value = rest.popFirst().flatMap(CallerIDAction.init) else { return nil }; policy.invalid = value
            case "--lenient", "--no-nanp-check": lenient = true
            case "-" where acceptsStdin: numbers.append(argument)
            default:
                if argument.hasPrefix("-") { return nil }  // --help, --index=..., typos
                numbers.append(argument)
            }
        }
        if numbers.isEmpty || (numbers.contains("-") && numbers.count > 1) { return nil }
    }

    /// Answers, then exits with the status `LookupCommand` documents. The index is still
    /// mapped at exit: the kernel drops the mapping with the process, which costs less than
    /// `munmap` (no TLB flush for a mapping about to go), ~5% of a one-shot lookup.
    /// `stream` answers `-` (numbers from stdin).
    package func run(stream: ((Lookup) throws -> Void)? = nil) -> Never {
        var lookup: Lookup?
        let status = answer(keeping: &lookup, stream: stream)
        withExtendedLifetime(lookup) { exit(status) }
    }

    private func answer(keeping kept: inout Lookup?, stream: ((Lookup) throws -> Void)?) -> Int32 {
        answerStatus(keeping: &kept, stream: stream).rawValue
    }

    private func answerStatus(keeping kept: inout Lookup?, stream: ((Lookup) throws -> Void)?) -> ExitStatus {
        let lookup: Lookup
        do {
            let normalizer = try NumberNormalizer(country: country, region: region, lenient: lenient)
            lookup = try shards.map { try Lookup(shards: ShardSet(manifestPath: $0), normalizer: normalizer, policy: policy, json: json) }
                ?? Lookup(index: CallDirIndex(path: index ?? DefaultIndex.path), normalizer: normalizer, policy: policy, json: json)
        } catch {
            _ = Terminal.failStatus(error)
            return .error
        }
        if let overlay { lookup.overlay = overlay }  // unset: no copy of an Optional (its metadata built at run time)
        kept = lookup
        if numbers == ["-"], let stream {
            do {
                try stream(lookup)
            } catch {
                _ = lookup.out.close()
                _ = Terminal.failStatus(error)
                return .error
            }
        } else {
            for number in numbers { lookup.answer(number) }
            if !json { LookupHints.print(lookup.rejected, arguments: numbers, normalizer: lookup.normalizer) }
        }
        guard lookup.out.close() else { return .error }
        return lookup.failed ? .error : (lookup.unlisted ? .negativeAnswer : .success)
    }
}
