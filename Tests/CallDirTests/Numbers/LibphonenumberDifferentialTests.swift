import Foundation
import Testing
import CallDirNumberTypes
import CallDirReader
import TestSupport

/// calldir's normaliser against libphonenumber itself (issue 33): `scripts/libphonenumber-oracle.py`
/// writes a fresh seeded corpus (about 70,000 fields over all 245 regions and the 9
/// non-geographic codes, written every way people write numbers, each also mutated) with the
/// verdicts of the PyPI `phonenumbers` package; one pass through the normaliser, in process,
/// compares. A region that shares its calling code (JE, CX, BS...) is read with
/// `--country REGION`, its own rules (issue 44), and its local numbers also with the code.
///
/// It fails on any field calldir stores as a number other than libphonenumber's E.164 of a
/// number it calls possible, and when agreement falls under 99.5%, overall or in any region. Replay a run with
/// `CALLDIR_ORACLE_SEED=N`. Skipped, saying so, without `.venv-numbers` (`scripts/setup --tests`).
@Suite("libphonenumber differential", .enabled(if: Oracle.python != nil,
                                                 "no .venv-numbers with phonenumbers: run scripts/setup --tests"))
struct LibphonenumberDifferentialTests {
    @Test func agreesWithIsPossibleNumber() throws {
        let corpus = try Oracle.shared.get()
        #expect(corpus.rows.count >= 50_000 && Set(corpus.rows.map(\.region)).count >= 245 + 9)
        var normalizers = Normalizers()
        let tally = Tally.compare(corpus) { row in normalizers[row]?.normalize(row.input) } expected: { $0.possible }
        tally.report("is_possible_number, seed \(corpus.seed)")
        #expect(tally.wronglyStored.isEmpty, "stored as other numbers: \(tally.wronglyStored.prefix(20))")
        #expect(tally.agreement >= 0.995, "agreement \(tally.percent) under 99.5%: \(tally.sample.prefix(30))")
        #expect(tally.regionsUnder(0.995).isEmpty, "regions under 99.5%: \(tally.regionsUnder(0.995)); \(tally.sample.prefix(30))")
    }

    /// Issue 44 item 3: every region that is not its calling code's main region (JE, GG, IM,
    /// AX, CC, CX, TA, BQ, KZ, the Caribbean NANP regions...) reads national numbers with its
    /// own rules under `--country REGION`, as `phonenumbers.parse(text, REGION)` does: `--country
    /// CX 90667967` is +61 8 9066 7967, `--country BS 3221234` +1 242 322 1234; its local
    /// numbers under the calling code (`--country 61`) as the main region reads them.
    @Test func sharedCodeRegionsReadTheirOwnRules() throws {
        let corpus = try Oracle.shared.get()
        let shared = (corpus.seed, corpus.rows.filter { Int($0.option) == nil || $0.shape.hasPrefix("code-") })
        var normalizers = Normalizers()
        let tally = Tally.compare(shared) { row in normalizers[row]?.normalize(row.input) } expected: { $0.possible }
        tally.report("--country REGION of a shared calling code, seed \(corpus.seed)")
        let local = shared.1.filter { $0.shape.hasPrefix("local") }
        #expect(tally.perRegion.count >= 39 && local.count >= 150, "\(tally.perRegion.count) regions, \(local.count) local numbers")
        #expect(tally.wronglyStored.isEmpty, "\(tally.wronglyStored.count) stored as other numbers: \(tally.wronglyStored.prefix(20))")
        #expect(tally.regionsUnder(0.995).isEmpty, "regions under 99.5%: \(tally.regionsUnder(0.995)); \(tally.sample.prefix(30))")
    }

    /// Issue 44: every emergency number of libphonenumber's short-number metadata, in every
    /// shape its `is_emergency_number` reads (`112#`, `*911`, `911;`, `Tel: 911`,
    /// `sip:911@example.com`, fullwidth, Arabic-Indic and Persian digits), with its region's
    /// calling code, under `--lenient` or not, and without `--country`: refused as
    /// `emergency-number`: never stored, and `allow` to a lookup whatever `--invalid` says
    /// (`CallerIDPolicy`).
    @Test func emergencyNumbersAreNeverStoredOrBlocked() throws {
        let corpus = try Oracle.shared.get()
        let rows = corpus.rows.filter(\.isEmergencyShape)
        #expect(rows.count >= 8_000 && Set(rows.map(\.region)).count >= 240)
        var wrong: [String] = []
        var normalizers: [String: NumberNormalizer] = [:]
        for row in rows where row.type == "EMERGENCY" {
            for lenient in [false, true] {
                let key = "\(row.code) \(lenient)"
                let normalizer = try normalizers[key] ?? NumberNormalizer(country: row.code == 0 ? nil : row.code, lenient: lenient)
                normalizers[key] = normalizer
                let result = normalizer.normalize(row.input)
                if result != .failure(.emergencyNumber) {
                    wrong.append("\(row.region) --country \(row.code)\(lenient ? " --lenient" : "") \(row.shape) '\(row.input)': \(Tally.describe(result))")
                }
            }
        }
        print("emergency numbers: \(rows.count) fields over \(Set(rows.map(\.region)).count) regions, \(wrong.count) not refused")
        #expect(wrong.isEmpty, "\(wrong.count) emergency numbers not refused: \(wrong.prefix(30))")
    }

    /// Issue 44 item 5 and issue 43: the shapes libphonenumber's `parse` reads and calldir's
    /// scanner refused: text around the number (`Tel: ...`), extensions (`ext. 12`, `x12`,
    /// `;ext=12`, `,123`, `;123`, kept apart), vanity letters (`1-800-FLOWERS`), fullwidth,
    /// Arabic-Indic and Persian digits; each region's example numbers written so, read with
    /// the region's calling code, must give libphonenumber's E.164 (of a possible number).
    @Test func textShapesAsLibphonenumberReadsThem() throws {
        let script = """
        import phonenumbers as p, sys
        from phonenumbers import PhoneMetadata, PhoneNumberFormat as F
        def script(text, zero): return ''.join(chr(zero + int(c)) if c.isdigit() else c for c in text)
        for region in sorted(p.SUPPORTED_REGIONS):
            meta = PhoneMetadata.metadata_for_region(region)
            if meta.country_code == 1 and region != 'US': continue
            for desc in (meta.fixed_line, meta.mobile):
                if desc is None or not desc.example_number: continue
                n = p.parse('+%d%s' % (meta.country_code, desc.example_number))
                intl, national = p.format_number(n, F.INTERNATIONAL), p.format_number(n, F.NATIONAL)
                for field in ['Tel: ' + intl, intl + ' ext. 12', intl + ' x12', intl + ';ext=12', intl + ',123', intl + ';123',
                              national + ' ext 5', script(intl, 0xFF10), script(intl, 0x0660), script(intl, 0x06F0), 'Phone: ' + national]:
                    try:
                        m = p.parse(field, region)
                        e164 = '%d%s' % (m.country_code, p.national_significant_number(m)) if p.is_possible_number(m) else '-'
                    except Exception:
                        e164 = '-'
                    print('%d\t%s\t%s' % (meta.country_code, field, e164))
        for field in ['1-800-FLOWERS', '1 (800) GOT-JUNK', '+1 800 FLOWERS']:
            m = p.parse(field, 'US'); print('1\t%s\t%d%s' % (field, m.country_code, p.national_significant_number(m)))
        """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Oracle.python!)
        process.arguments = ["-c", script]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        var rows = 0
        var agreed = 0
        var wrong: [String] = []
        var normalizers: [Int: NumberNormalizer] = [:]
        for line in text.split(separator: "\n") {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard f.count == 3, let code = Int(f[0]) else { continue }
            let normalizer = try normalizers[code] ?? NumberNormalizer(country: code)
            normalizers[code] = normalizer
            let expected = Int64(f[2])
            if let expected, E164.digitCount(expected) > 15 || E164.digitCount(expected) < 7 { continue }  // calldir's E.164 bounds
            rows += 1
            let result = normalizer.normalize(String(f[1]))
            var stored: Int64?
            if case .success(.number(let n)) = result { stored = n }
            if stored == expected { agreed += 1; continue }
            if stored != nil { wrong.append("--country \(code) '\(f[1])': calldir \(Tally.describe(result)), libphonenumber \(f[2])") }
            else if wrong.count < 40 { wrong.append("--country \(code) '\(f[1])': calldir \(Tally.describe(result)), libphonenumber \(f[2]) (refused)") }
        }
        let agreement = Double(agreed) / Double(max(1, rows))
        print("text shapes: \(agreed) of \(rows) agree (\(String(format: "%.2f%%", agreement * 100)))")
        #expect(rows > 3_000)
        #expect(!wrong.contains { !$0.hasSuffix("(refused)") }, "stored as other numbers: \(wrong.filter { !$0.hasSuffix("(refused)") }.prefix(20))")
        #expect(agreement >= 0.99, "\(wrong.prefix(30))")
    }

    /// Issue 43: a contact stored with a pause or an extension is read as libphonenumber reads
    /// it (the extension apart), so it is an exception in the user's layer; a pause `p`/`w` is
    /// read as libphonenumber reads it too (its digits join the number: not a possible one).
    @Test func contactsWithExtensionsAreExceptions() throws {
        struct Contacts: ContactsSource {
            let written: [String]
            func forEachPhoneNumber(_ body: (String) throws -> Void) throws { try written.forEach(body) }
        }
        let written = ["+33 1 62 00 00 42,123", "+33 1 62 00 00 43;123", "+33 1 62 00 00 44 ext. 12", "+33 1 62 00 00 45,,7",
                       "+33 1 62 00 00 46p123", "+33 1 62 00 00 47w5", "01 62 00 00 48 x12", "Tel: 01 62 00 00 49", "+33 1 62 00 00 50;ext=9"]
        let script = """
        import phonenumbers as p, sys
        for field in sys.argv[1:]:
            n = p.parse(field, 'FR')
            print('%d%s' % (n.country_code, p.national_significant_number(n)) if p.is_possible_number(n) else '-')
        """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Oracle.python!)
        process.arguments = ["-c", script] + written
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let lines = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        process.waitUntilExit()
        let expected = Set(lines.compactMap { Int64($0) })
        #expect(expected.count == 7, "\(lines)")
        var skipped = 0
        let numbers = try Contacts(written: written).numbers(normalizer: NumberNormalizer(country: 33), skipped: &skipped)
        #expect(Set(numbers) == expected, "\(numbers) vs \(lines)")
        #expect(skipped == written.count - expected.count)
    }

    /// `--valid-only`: the normaliser, then the DFA tables of `NumberTypes`, against
    /// `is_valid_number`; and each valid number's type against `number_type`.
    @Test func agreesWithIsValidNumberAndType() throws {
        let corpus = try Oracle.shared.get()
        var typesAgreed = 0
        var typeMismatches: [String] = []
        var normalizers = Normalizers()
        let tally = Tally.compare(corpus) { row in
            guard let normalizer = normalizers[row] else { return nil }
            let result = normalizer.normalize(row.input)
            guard case .success(.number(let n)) = result else { return result }
            guard let type = NumberTypes.type(ofE164: n) else { return .failure(.invalidNumber) }
            if row.valid, row.e164 == n {
                let expected = row.type.lowercased().replacingOccurrences(of: "_", with: "-")
                    .replacingOccurrences(of: "personal-number", with: "personal")
                if type.rawValue == expected { typesAgreed += 1 } else { typeMismatches.append("\(row.input): \(type) vs \(row.type)") }
            }
            return result
        } expected: { $0.valid }
        tally.report("is_valid_number (--valid-only), seed \(corpus.seed)")
        print("number_type: \(typesAgreed) agree, \(typeMismatches.count) differ")
        #expect(tally.wronglyStored.isEmpty, "stored as other numbers: \(tally.wronglyStored.prefix(20))")
        #expect(tally.agreement >= 0.995, "agreement \(tally.percent) under 99.5%: \(tally.sample.prefix(30))")
        #expect(typeMismatches.isEmpty, "\(typeMismatches.prefix(20))")
    }
}

/// One field and libphonenumber's verdict on it.
struct OracleRow: Sendable {
    /// `--country` as given: a calling code, a region (JE), or "0" for none.
    let option: String
    /// The calling code (0 for none).
    let code: Int
    let region: String
    let shape: String
    let input: String
    /// E.164 digits when libphonenumber parses the field.
    let e164: Int64?
    let e164Digits: Int
    let possible: Bool
    /// Possible only dialled locally, without an area code (`IS_POSSIBLE_LOCAL_ONLY`).
    let localOnly: Bool
    let valid: Bool
    let type: String

    /// An emergency number written some way (`emergency-hash`: `112#`): type EMERGENCY when
    /// libphonenumber's `is_emergency_number` says it is one for the row's region.
    var isEmergencyShape: Bool { shape.hasPrefix("emergency-") }
}

enum Oracle {
    static let python: String? = {
        let path = packageRoot.appendingPathComponent(".venv-numbers/bin/python3").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }()

    /// One corpus for both tests of a run.
    static let shared = Result { try corpus() }

    /// Runs the oracle with a fresh seed (or `CALLDIR_ORACLE_SEED`), printed for replay.
    static func corpus() throws -> (seed: UInt64, rows: [OracleRow]) {
        let seed = ProcessInfo.processInfo.environment["CALLDIR_ORACLE_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 1...999_999_999)
        print("libphonenumber differential: seed \(seed) (replay with CALLDIR_ORACLE_SEED=\(seed))")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python!)
        process.arguments = [packageRoot.appendingPathComponent("scripts/libphonenumber-oracle.py").path, "\(seed)"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw OracleFailure(status: process.terminationStatus) }
        let rows = String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap(parse)
        return (seed, rows)
    }

    static func parse(_ line: Substring) -> OracleRow? {
        let f = line.split(separator: "\t", omittingEmptySubsequences: false)
        guard f.count == 8, !line.hasPrefix("#"),
              let code = Int(f[0]) ?? CountryTable.callingCode(forRegion: String(f[0])) else { return nil }
        return OracleRow(option: String(f[0]), code: code, region: String(f[1]), shape: String(f[2]), input: String(f[3]),
                         e164: Int64(f[4]), e164Digits: f[4].count, possible: f[5] == "1", localOnly: f[5] == "L", valid: f[6] == "1",
                         type: String(f[7]))
    }
}

struct OracleFailure: Error { let status: Int32 }

/// One normaliser per `--country` value of the corpus (a calling code, a region, or none).
struct Normalizers {
    private var built: [String: NumberNormalizer] = [:]

    subscript(row: OracleRow) -> NumberNormalizer? {
        mutating get {
            if let normalizer = built[row.option] { return normalizer }
            let normalizer = Int(row.option) == nil ? try? NumberNormalizer(region: row.option)
                : try? NumberNormalizer(country: row.code == 0 ? nil : row.code)
            built[row.option] = normalizer
            return normalizer
        }
    }
}

/// Agreement of calldir's verdicts with the reference's, overall and per region.
struct Tally {
    var rows = 0
    var agreed = 0
    var excepted = 0
    var perRegion: [String: (rows: Int, agreed: Int)] = [:]
    /// Fields stored as a number other than the reference's possible one.
    var wronglyStored: [String] = []
    /// Some disagreements, for the failure message.
    var sample: [String] = []

    var agreement: Double { Double(agreed) / Double(max(1, rows)) }

    /// Regions whose agreement is under `bound`, with it.
    func regionsUnder(_ bound: Double) -> [String] {
        perRegion.filter { Double($0.value.agreed) < bound * Double($0.value.rows) }.sorted { $0.key < $1.key }
            .map { String(format: "%@ %.1f%% of %d", $0.key, Double($0.value.agreed) * 100 / Double($0.value.rows), $0.value.rows) }
    }
    var percent: String { String(format: "%.2f%%", agreement * 100) }

    /// `accepts` is calldir's verdict on a row (nil: no normaliser for its code); `expected`
    /// whether the reference accepts it.
    static func compare(_ corpus: (seed: UInt64, rows: [OracleRow]),
                        normalize: (OracleRow) -> Result<NormalizedEntry, RejectReason>?,
                        expected: (OracleRow) -> Bool) -> Tally {
        var tally = Tally()
        for row in corpus.rows where !row.isEmergencyShape {
            if let reason = Exceptions.reason(row) { tally.excepted += 1; _ = reason; continue }
            let result = normalize(row)
            var stored: Int64?
            if case .success(.number(let n))? = result { stored = n }
            let wants = expected(row) ? row.e164 : nil
            let agrees = stored == wants
            tally.rows += 1
            tally.perRegion[row.region, default: (0, 0)].rows += 1
            if agrees {
                tally.agreed += 1
                tally.perRegion[row.region, default: (0, 0)].agreed += 1
                continue
            }
            let line = "\(row.region) --country \(row.option) \(row.shape) '\(row.input)': calldir \(describe(result)), libphonenumber \(row.e164.map { "+\($0)" } ?? "no number")\(row.possible ? "" : " (not possible)")"
            if let stored, row.possible, let e164 = row.e164, stored != e164 { tally.wronglyStored.append(line) }
            if tally.sample.count < 200 { tally.sample.append(line) }
        }
        return tally
    }

    static func describe(_ result: Result<NormalizedEntry, RejectReason>?) -> String {
        switch result {
        case .success(.number(let n))?: return "+\(n)"
        case .success(.range(let r))?: return "range +\(r.first)...+\(r.last)"
        case .failure(let reason)?: return "\(reason)"
        case nil: return "no normaliser"
        }
    }

    func report(_ title: String) {
        print("\(title): \(agreed) of \(rows) agree (\(percent)), \(wronglyStored.count) stored as other numbers, \(excepted) named exceptions")
        let regions = perRegion.sorted { $0.key < $1.key }.map { key, value in
            String(format: "%@ %.1f", key, Double(value.agreed) * 100 / Double(max(1, value.rows)))
        }
        print("  per region: " + regions.joined(separator: ", "))
    }
}

/// Rows where calldir differs from libphonenumber on purpose, each with its reason.
enum Exceptions {
    static func reason(_ row: OracleRow) -> String? {
        // CallKit stores E.164 numbers of at most 15 digits; libphonenumber allows 17.
        if row.possible, row.e164Digits > 15 { return "longer than E.164's 15 digits" }
        // Nor does a caller ID carry fewer than 7 (+49 190, +353 46247): calldir's minimum.
        if row.possible, row.e164Digits < 7 { return "shorter than 7 digits" }
        // is_possible_number accepts a number without its area code (+1 320 0379, Mexico's 7
        // and 8 digits); no call shows one as its caller ID, so calldir refuses it.
        if row.localOnly { return "a local number without its area code" }
        // A `-` with a space beside it splits calldir's explicit ranges (rule 3).
        if row.input.contains(" -") || row.input.contains("- ") { return "a range separator" }
        return nil
    }
}
