import CallDirNumbers
import CallDirReader

/// Without `--country`, a list of North American numbers written nationally (`4692576503`)
/// compiles into numbers of other countries (+46 92576503): each is a possible E.164 number, so
/// no row is refused. The compile shows this check each batch of plain numbers the reading
/// thread normalised (up to 16,384 rows) before taking its rows: it samples the batch's first
/// 64 numbers, adding nothing to the per-row loop, and warns when most
/// are 10-digit numbers that would be possible North American numbers after a 1, naming the
/// calling codes they became.
struct NationalShapeCheck {
    /// Numbers sampled, and how many of them look North American.
    private(set) var sampled = 0
    private(set) var northAmerican = 0
    /// Sampled numbers by calling code (index 0: none).
    private var codes = [Int32](repeating: 0, count: 1000)
    static let perBatch = 64

    /// Samples the first numbers of a batch (0 marks a row that was not a plain number).
    mutating func note(_ numbers: UnsafeMutablePointer<Int64>, count: Int) {
        for i in 0..<min(count, Self.perBatch) where numbers[i] != 0 {
            let number = numbers[i]
            sampled += 1
            if Self.looksNorthAmerican(number) { northAmerican += 1 }
            codes[CountryTable.callingCode(ofE164: number) ?? 0] += 1
        }
    }

    static let maxTextSampled = 4_096

    /// Notes one number of a row that came as text (the national-list check's first rows, or a
    /// formatted row), so those rows count as the plain ones do.
    mutating func noteOne(_ number: Int64) {
        // A sample, as for plain rows: an identification list sends every row here.
        guard sampled < Self.maxTextSampled else { return }
        sampled += 1
        if Self.looksNorthAmerican(number) { northAmerican += 1 }
        codes[CountryTable.callingCode(ofE164: number) ?? 0] += 1
    }

    /// Whether `number` (E.164) is 10 digits that make a possible North American number
    /// after a 1: area code and exchange starting with 2-9.
    static func looksNorthAmerican(_ number: Int64) -> Bool {
        (2_000_000_000...9_999_999_999).contains(number) && number / 1_000_000 % 10 >= 2
    }

    /// The calling codes of the sample, most first (at most 5), with their counts.
    var topCodes: [(code: Int, count: Int)] {
        codes.indices.dropFirst().filter { codes[$0] > 0 }.sorted { (codes[$0], $1) > (codes[$1], $0) }
            .prefix(5).map { ($0, Int(codes[$0])) }
    }

    /// How the warning starts: a compile without `--international` fails with it.
    static let lead = "the list looks national: "

    /// The warning, when most sampled numbers look like national North American ones.
    var warning: String? {
        guard sampled >= 16, northAmerican * 2 > sampled else { return nil }
        let share = northAmerican * 100 / sampled
        let top = topCodes.map { "+\($0.code) \($0.count * 100 / sampled)%" }.joined(separator: ", ")
        return Self.lead + "\(share)% of the numbers have 10 digits, like North American (US) numbers written without their 1; "
            + "read as E.164 they became numbers of other countries (\(top)). For a North American list, compile with --country 1."
    }
}
