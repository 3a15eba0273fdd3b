import CallDirNumberTypes
import CallDirNumbers
import CallDirReader

/// Without `--country`, a national list must not become numbers of other countries (issue 44):
/// a Chinese list's `131 2347 2898` is the possible E.164 number +1 312 347 2898, an Italian
/// `312 345 6789` +31 2345 6789, and a Swiss list's `021 560 12 34` is refused row by row as
/// `missing-country-code` until a `--skip-invalid` compile keeps 1 row of 91 with exit 0.
///
/// The compile samples rows as written without `+` (the first `perKind` rows it read, which
/// the reading thread hands over as text, and the first `perKind` rows it refused as
/// `missing-country-code`) and, at the end, scores every
/// calling code against them: how many sampled rows read with `--country CODE` are valid
/// numbers (libphonenumber's `is_valid_number`, `NumberTypes`). The list looks national, and
/// the compile fails naming the best codes and their regions, when
/// - most rows read were refused as `missing-country-code` (trunk prefixes: `0...`), or
/// - at least 80% of the sampled rows are valid national numbers of one calling code, at most
///   40% are valid read as E.164, and clearly fewer (a list of E.164 digits without `+`, even
///   of spoofed numbers, stays E.164).
/// Scoring runs only then, after the compile: nothing is added to the per-row loop but a
/// count check.
struct NationalListCheck {
    static let perKind = 256
    /// How the failure starts (`--international` does not silence a list of refused rows).
    static let lead = "the list looks national: "

    /// Rows read without `+`, taken or refused (a sample of the taken ones alone leans to
    /// the rows that happen to be foreign numbers): the text as written.
    private(set) var taken: [[UInt8]] = []
    /// Rows refused as `missing-country-code`: the text as written.
    private(set) var refused: [[UInt8]] = []
    var wantsTaken: Bool { taken.count < Self.perKind }

    mutating func noteTaken(_ text: UnsafeRawBufferPointer) {
        guard taken.count < Self.perKind, let first = text.first(where: { $0 != 0x20 && $0 != 0x09 }), first != 0x2B else { return }
        taken.append(Array(text))
    }

    mutating func noteRefused(_ text: UnsafeRawBufferPointer) {
        if refused.count < Self.perKind { refused.append(Array(text)) }
    }

    /// A calling code and how many of the sample it reads as valid numbers.
    struct Score { let code: Int; let valid: Int }

    /// The calling codes reading most of `sample` as valid numbers, best first: those within
    /// 90% of the best score, at most 6 (short national numbers are valid in several plans).
    static func scores(_ sample: [[UInt8]]) -> [Score] {
        var scores: [Score] = []
        // Regions only: a national list is no list of non-geographic numbers (+800, +888...).
        for code in 1..<1000 where CountryTable.exists(code) && !CountryTable.regionNames(code).isEmpty {
            guard let normalizer = try? NumberNormalizer(country: code) else { continue }
            var valid = 0
            for text in sample {
                let result = text.withUnsafeBytes { normalizer.normalize($0) }
                if case .success(.number(let n)) = result, NumberTypes.type(ofE164: n) != nil { valid += 1 }
            }
            if valid > 0 { scores.append(Score(code: code, valid: valid)) }
        }
        let sorted = scores.sorted { ($0.valid, $1.code) > ($1.valid, $0.code) }
        guard let top = sorted.first else { return [] }
        return Array(sorted.prefix { $0.valid * 10 >= top.valid * 9 }.prefix(6))
    }

    /// The failure message, or nil when the list does not look national. `rowsRead` and
    /// `missingCountryCode` count the whole compile.
    func verdict(rowsRead: Int, missingCountryCode: Int) -> String? {
        if missingCountryCode > 0, missingCountryCode * 2 >= rowsRead, !refused.isEmpty {
            let best = Self.scores(refused)
            let example = String(decoding: refused[0], as: UTF8.self)
            return Self.lead + "\(missingCountryCode) of \(rowsRead) rows have no country code (missing-country-code: national numbers such as '\(example)'); "
                + Self.advice(best, sampled: refused.count)
        }
        guard taken.count >= 16 else { return nil }
        // 11 digits starting with 1 is how CallKit and most lists write North American E.164
        // numbers: not national, even where their area codes are unassigned (spoofed callers,
        // synthetic corpora), which libphonenumber's validity would call foreign.
        let northAmericanE164 = taken.filter { text in
            let digits = text.filter { $0 &- 0x30 < 10 }
            return digits.count == 11 && digits.first == UInt8(ascii: "1") && text.first != UInt8(ascii: "0")
        }.count
        if northAmericanE164 * 10 >= taken.count * 8 { return nil }
        let asE164 = taken.reduce(0) { count, text in
            let digits = text.filter { $0 &- 0x30 < 10 }
            guard digits.count <= 18, let n = Int64(String(decoding: digits, as: UTF8.self)) else { return count }
            return NumberTypes.type(ofE164: n) != nil ? count + 1 : count
        }
        // Mostly valid read as E.164 (a list of E.164 digits, or of spoofed +1 numbers with
        // unassigned area codes): not national. A Chinese mobile list is 21% valid as E.164,
        // an Italian one 0%, a US one written without its 1 15%.
        guard asE164 * 5 <= taken.count * 2 else { return nil }
        let best = Self.scores(taken)
        guard let top = best.first, top.valid * 10 >= taken.count * 8, top.valid >= asE164 + taken.count / 5 else { return nil }
        let northAmerica = top.code == 1 ? ", like North American (US) numbers written without their 1" : ""
        return Self.lead + "\(top.valid * 100 / taken.count)% of the sampled numbers are valid national numbers\(northAmerica), "
            + "but only \(asE164 * 100 / taken.count)% are valid read as E.164, as they were (numbers of other countries); "
            + Self.advice(best, sampled: taken.count)
    }

    /// "compile with --country CH (41; CH, LI: 97% of the sampled rows are valid numbers)...".
    static func advice(_ best: [Score], sampled: Int) -> String {
        guard let top = best.first else {
            return "no calling code reads them as valid numbers; compile with --country and the list's country. No index written"
        }
        let named = best.map { score in
            let regions = CountryTable.regionNames(score.code)
            let shown = regions.count > 4 ? regions.prefix(4).joined(separator: ", ") + "..." : regions.joined(separator: ", ")
            return "--country \(score.code) (\(shown): \(score.valid * 100 / sampled)% valid)"
        }
        if best.count == 1 || best[1].valid < top.valid {
            let others = best.count == 1 ? "" : "; also possible: " + named.dropFirst().joined(separator: ", ")
            return "compile with --country \(top.code) (read so, \(top.valid * 100 / sampled)% of the sampled rows are valid numbers: "
                + named[0] + others + "). No index written"
        }
        return "compile with --country and the list's country (the calling codes reading most sampled rows as valid numbers: "
            + named.joined(separator: ", ") + "). No index written"
    }
}
