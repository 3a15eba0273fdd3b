import CallDirNumbers
import CallDirReader

/// Problems a compile found, by kind, with the flag that addresses each: the compile's last
/// line names the fix ("20 out of order: --sort accepts any order; 3 repeated: --dedupe
/// collapses repeats"), and `--json` lists the same tallies.
package struct ProblemTally: Sendable, Equatable {
    /// Problems by rule (`entries-out-of-order`, `duplicate-entries`, a reject reason).
    package private(set) var counts: [String: Int] = [:]
    /// Some refused rows were 10 plain digits shaped like North American numbers, read
    /// without --country: the fix names --country.
    package var sawNationalNumbers = false

    package init() {}

    package mutating func add(_ rule: String, count: Int = 1) { counts[rule, default: 0] += count }

    package var total: Int { counts.values.reduce(0, +) }

    /// One kind of problem: what it is, how many, which rules, and the flag that fixes it.
    package struct Kind: Sendable, Equatable {
        package let name: String
        package let count: Int
        package let rules: [(String, Int)]
        package let fix: String

        package static func == (a: Kind, b: Kind) -> Bool {
            a.name == b.name && a.count == b.count && a.fix == b.fix && a.rules.elementsEqual(b.rules, by: ==)
        }
    }

    /// The kinds found, in the order a user fixes them (order, repeats, numbers, labels).
    package var kinds: [Kind] {
        var numbers: [(String, Int)] = []
        var labels: [(String, Int)] = []
        var others: [(String, Int)] = []
        var emergency = 0
        for (rule, count) in counts.sorted(by: { $0.key < $1.key }) {
            guard let reason = RejectReason(rawValue: rule) else {
                if rule != "entries-out-of-order" && rule != "duplicate-entries" { others.append((rule, count)) }
                continue
            }
            if reason == .emergencyNumber {
                emergency = count
            } else if RejectReason.normalizerReasons.contains(reason) || reason == .invalidNumber || reason == .excludedType {
                numbers.append((rule, count))
            } else {
                labels.append((rule, count))
            }
        }
        var kinds: [Kind] = []
        if let n = counts["entries-out-of-order"] {
            kinds.append(Kind(name: "out of order", count: n, rules: [("entries-out-of-order", n)], fix: "--sort accepts any order"))
        }
        if let n = counts["duplicate-entries"] {
            kinds.append(Kind(name: "repeated", count: n, rules: [("duplicate-entries", n)], fix: "--dedupe keeps one of each"))
        }
        if !numbers.isEmpty {
            var fixes: [String] = []
            if sawNationalNumbers {
                fixes.append("--country 1 reads North American numbers written without their 1")
            } else if numbers.contains(where: { $0.0 == RejectReason.missingCountryCode.rawValue }) {
                fixes.append("--country reads national numbers")
            }
            let countryRules: Set<String> = [RejectReason.unknownCountryCode, .invalidLeadingDigit, .invalidAreaCode, .tooShort, .tooLong]
                .reduce(into: []) { $0.insert($1.rawValue) }
            if numbers.contains(where: { countryRules.contains($0.0) }) {
                fixes.append("--lenient takes what CallKit takes")
            }
            fixes.append("--skip-invalid leaves them out")
            let n = numbers.reduce(0) { $0 + $1.1 }
            kinds.append(Kind(name: n == 1 ? "not a possible number" : "not possible numbers", count: numbers.reduce(0) { $0 + $1.1 }, rules: numbers,
                              fix: fixes.joined(separator: ", ")))
        }
        if emergency > 0 {
            kinds.append(Kind(name: emergency == 1 ? "emergency number" : "emergency numbers", count: emergency,
                              rules: [(RejectReason.emergencyNumber.rawValue, emergency)],
                              fix: emergency == 1 ? "remove the row (emergency numbers are never blocked or labelled), or --skip-invalid leaves it out"
                                  : "remove the rows (emergency numbers are never blocked or labelled), or --skip-invalid leaves them out"))
        }
        if !labels.isEmpty {
            // Labels that are not UTF-8 mean a file in another encoding: every row with an accent
            // fails, and --skip-invalid would drop them all. Converting keeps them.
            let encoding = labels.contains { $0.0 == RejectReason.labelInvalidUTF8.rawValue }
            let fix = encoding
                ? "the list is not UTF-8: convert it first, e.g. iconv -f latin1 -t utf-8 LIST > LIST.utf8 (-f cp1252 for Windows files)"
                    + (labels.count > 1 ? "; --skip-invalid leaves the other rows out" : "")
                : "--skip-invalid leaves them out"
            kinds.append(Kind(name: "with labels CallKit would refuse", count: labels.reduce(0) { $0 + $1.1 }, rules: labels, fix: fix))
        }
        for (rule, count) in others { kinds.append(Kind(name: rule, count: count, rules: [(rule, count)], fix: "")) }
        return kinds
    }

    /// "20 out of order: --sort accepts any order; 3 not possible numbers (too-long 2,
    /// missing-country-code 1): --country reads national numbers, --skip-invalid leaves them out".
    package var advice: String {
        let parts = kinds.map { kind -> String in
            var part = "\(kind.count) \(kind.name)"
            if kind.rules.count > 1 || (kind.name.hasPrefix("not") || kind.name.hasPrefix("with labels")) {
                part += " (" + kind.rules.map { "\($0.0) \($0.1)" }.joined(separator: ", ") + ")"
            }
            return kind.fix.isEmpty ? part : part + ": " + kind.fix
        }
        return parts.isEmpty ? "no problems" : parts.joined(separator: "; ")
    }

    package var json: JSONValue {
        .array(kinds.map { kind in
            .object([
                ("kind", .string(kind.name)),
                ("count", .int(Int64(kind.count))),
                ("rules", .object(kind.rules.map { ($0.0, .int(Int64($0.1))) })),
                ("fix", .string(kind.fix)),
            ])
        })
    }
}
