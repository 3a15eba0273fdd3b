import CallDirReader

/// Without `--country`, a list of North American numbers written nationally (`4692576503`)
/// compiles into numbers of other countries (+46 92576503): each is a possible E.164 number, so
/// no row is refused. This watches a sample of the numbers a compile stores (the first 1,024
/// rows, then one in 64)
/// and warns when most are 10 digits that are possible North American numbers, naming the
/// calling codes they became.
struct NationalShapeCheck {
    private(set) var sampled = 0
    private(set) var tenDigitNANP = 0
    /// Sampled numbers by calling code (0: none).
    private var codes = [Int32](repeating: 0, count: 1000)

    /// Takes one stored number from the sample.
    mutating func note(_ number: Int64) {
        sampled += 1
        if (1_000_000_000...9_999_999_999).contains(number),
           number / 1_000_000_000 >= 2, number / 1_000_000 % 10 >= 2 {
            tenDigitNANP += 1
        }
        codes[CountryTable.callingCode(ofE164: number) ?? 0] &+= 1
    }

    /// The calling codes of the sample, most first (at most 5).
    var topCodes: [(code: Int, count: Int)] {
        codes.indices.dropFirst().filter { codes[$0] > 0 }.sorted { (codes[$0], $1) > (codes[$1], $0) }
            .prefix(5).map { ($0, Int(codes[$0])) }
    }

    /// The warning, when most sampled numbers look like national North American ones.
    var warning: String? {
        guard sampled >= 16, tenDigitNANP * 2 > sampled else { return nil }
        let share = tenDigitNANP * 100 / sampled
        let top = topCodes.map { "+\($0.code) \($0.count * 100 / max(sampled, 1))%" }.joined(separator: ", ")
        return "\(share)% of the numbers have 10 digits and are possible North American numbers written without their 1; "
            + "read as E.164 they became numbers of other countries (\(top)). For a North American list, compile with --country 1."
    }
}
