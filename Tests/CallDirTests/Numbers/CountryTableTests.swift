import CallDir
import CallDirLookup
import CallDirReader
import Foundation
import Testing
import CompileSupport
import TestSupport

/// The per-country rules generated from libphonenumber's metadata (`CountryTable`), as the
/// normaliser applies them (rule 6), and the prefix table docs/NUMBERS.md documents.
@Suite("Country rules from libphonenumber's metadata")
struct CountryTableTests {
    /// One line of `Fixtures/country-examples.tsv` (written by scripts/gen-country-table.py).
    struct Example: Sendable, CustomTestStringConvertible {
        let code: Int
        let kind: String
        let digits: String
        var testDescription: String { "+\(digits) (\(kind))" }
    }

    static let examples: [Example] = {
        let path = packageRoot.appendingPathComponent("Tests/CallDirTests/Fixtures/country-examples.tsv").path
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            let f = line.split(separator: "\t")
            guard f.count == 3, let code = Int(f[0]) else { return nil }
            return Example(code: code, kind: String(f[1]), digits: String(f[2]))
        }
    }()

    @Test func fixtureCoversEveryCallingCode() {
        #expect(Self.examples.count > 1_500)
        let codes = Set(Self.examples.filter { $0.kind == "valid" }.map(\.code))
        let table = Set((1..<1000).filter(CountryTable.exists))
        #expect(table.count == 215)
        #expect(table.subtracting(codes).isEmpty, "codes without an example: \(table.subtracting(codes).sorted())")
        for kind in ["short", "long", "lead"] { #expect(Self.examples.contains { $0.kind == kind }) }
    }

    /// Every example number libphonenumber gives is accepted; each variant of an impossible
    /// length is refused with the reason that names that rule. (A variant with a first digit
    /// no number of its country has is possible, so accepted by default: `--valid-only`
    /// refuses it, below.)
    @Test func examplesNormalise() throws {
        let normalizer = try NumberNormalizer()
        let lenient = try NumberNormalizer(lenient: true)
        var wrong: [String] = []
        for example in Self.examples {
            let result = normalizer.normalize("+" + example.digits)
            let expected: Result<NormalizedEntry, RejectReason>
            switch example.kind {
            case "valid": expected = .success(.number(Int64(example.digits)!))
            case "short": expected = .failure(.tooShort)
            case "long": expected = .failure(.tooLong)
            default: continue
            }
            if result != expected { wrong.append("+\(example.digits) \(example.kind): \(result)") }
            // --lenient takes what CallKit takes: any 7 to 15 digits.
            if example.digits.count <= 15, case .failure(let reason) = lenient.normalize("+" + example.digits) {
                wrong.append("+\(example.digits) refused by --lenient: \(reason)")
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(20))")
    }

    /// The examples through a compile with `--valid-only` and lookups of the index: the valid
    /// ones are found, the others are rejected rows, counted by reason.
    @Test func examplesRoundTripThroughCompileAndLookup() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let list = folder.write("examples.txt", Self.examples.map { "+\($0.digits)\n" }.joined())
        let summary = try compile(block: [list], output: folder.file("i.calldir")) {
            $0.sort = true
            $0.dedupe = true
            $0.skipInvalid = true
            $0.validOnly = true
        }
        let valid = Self.examples.filter { $0.kind == "valid" }
        let distinct = Set(valid.map(\.digits))
        #expect(summary.entries == distinct.count)
        let invalid = Self.examples.count - valid.count
        #expect(summary.rejected.values.reduce(0, +) == invalid)
        #expect(summary.rejected["too-short"] == Self.examples.filter { $0.kind == "short" }.count)
        #expect(summary.rejected["too-long"] == Self.examples.filter { $0.kind == "long" }.count)
        #expect(summary.rejected["not-valid"] == Self.examples.filter { $0.kind == "lead" }.count)
        let index = try CallDirIndex(path: folder.file("i.calldir"), verify: true)
        let normalizer = try NumberNormalizer()
        for example in Self.examples {
            // What `calldir lookup` does with the text: classify, then look the number up.
            switch normalizer.classify("+" + example.digits) {
            case .number(let n):
                guard example.kind == "valid" else { continue }  // possible: the lookup takes it
                #expect(try index.lookup(n).blocked == .exact, "+\(example.digits)")
            case .notANumber(let reason):
                #expect(example.kind != "valid", "+\(example.digits): \(reason)")
            }
        }
    }

    /// The prefix table of docs/NUMBERS.md, one test per documented country: a national number
    /// with its trunk prefix, a foreign number after its international prefix, and `00` where
    /// it is not the international prefix.
    @Test(arguments: [
        // code, national (trunk) form, its E.164, foreign number dialled from there, E.164
        (1, "(212) 555-0123", 12_125_550_123, "011 41 21 213 09 11", 41_212_130_911),
        (7, "8 495 123-45-67", 74_951_234_567, "810 41 21 213 09 11", 41_212_130_911),
        (33, "01 62 00 00 00", 33_162_000_000, "00 41 21 213 09 11", 41_212_130_911),
        (34, "912 345 678", 34_912_345_678, "00 41 21 213 09 11", 41_212_130_911),
        (36, "06 1 234 5678", 3_612_345_678, "00 41 21 213 09 11", 41_212_130_911),
        (39, "06 1234 5678", 390_612_345_678, "00 41 21 213 09 11", 41_212_130_911),
        (41, "021 213 09 11", 41_212_130_911, "00 33 1 62 00 00 00", 33_162_000_000),
        (43, "01 58858", 43_158_858, "00 41 21 213 09 11", 41_212_130_911),
        (44, "020 7946 0958", 442_079_460_958, "00 41 21 213 09 11", 41_212_130_911),
        (49, "030 1234567", 49_301_234_567, "00 41 21 213 09 11", 41_212_130_911),
        (55, "011 2345 6789", 551_123_456_789, "0021 41 21 213 09 11", 41_212_130_911),
        (61, "02 1234 5678", 61_212_345_678, "0011 41 21 213 09 11", 41_212_130_911),
        (81, "03-1234-5678", 81_312_345_678, "010 41 21 213 09 11", 41_212_130_911),
        (86, "010 1234 5678", 861_012_345_678, "00 41 21 213 09 11", 41_212_130_911),
    ] as [(Int, String, Int64, String, Int64)])
    func prefixesFollowTheCountry(_ c: (Int, String, Int64, String, Int64)) throws {
        let (code, national, e164, foreign, foreignE164) = c
        let normalizer = try NumberNormalizer(country: code)
        #expect(normalizer.normalize(national) == .success(.number(e164)))
        #expect(normalizer.normalize(foreign) == .success(.number(foreignE164)))
        #expect(normalizer.normalize("+" + String(e164)) == .success(.number(e164)))
        if !CountryTable.internationalPrefixes(code).contains("00") {
            // `00 41 21 213 09 11` is no international number there.
            #expect(normalizer.normalize("00 41 21 213 09 11") != .success(.number(41_212_130_911)))
        }
    }

    @Test func northAmericaIsNot00() throws {
        let us = try NumberNormalizer(country: 1)
        #expect(us.normalize("0033615188824") == .failure(.tooLong))
        #expect(us.explain("0033615188824", .tooLong).contains("00 is not North America's international prefix: 011 is"))
        #expect(us.normalize("011 33 6 15 18 88 24") == .success(.number(33_615_188_824)))
        #expect(CountryTable.internationalPrefixes(1) == ["011"])
    }

    /// Reasons name the country and the rule that failed, not one that did not.
    @Test(arguments: [
        (nil, "+46 1234 5678 901", RejectReason.tooLong, "+46 numbers have 6 to 10 or 12 digits after 46; this has 11"),
        (nil, "+41 21 213 09 1", .tooShort, "+41 numbers have 9 or 12 digits after 41; this has 8"),
        (nil, "1111111111", .tooShort, "a North American number (+1) has 11 digits; this has 10 (a national number? pass --country 1)"),
        (nil, "+1 800 555 55555", .tooLong, "a North American number (+1) has 11 digits; this has 12"),
        (nil, "+999 123 4567", .unknownCountryCode, "no country uses any of the calling codes +9, +99, +999"),
        (nil, "+44 4123 ######", .invalidLeadingDigit, "+44 numbers start with 1 to 3, 5 or 7 to 9 after 44; this starts with 4"),
        (nil, "(469) 257-6503", .missingCountryCode, "pass --country"),
        (nil, "0215601234", .missingCountryCode, "pass --country"),
        (1, "442079460958", .tooLong, "with --country 1 a number has 10 digits, or 11 starting with 1 (North America); this has 12"),
        (1, "07453775817", .tooLong, "with --country 1 a number has 10 digits, or 11 starting with 1 (North America); this has 11, starting with 0"),
        (1, "+0123456789", .missingCountryCode, "a country calling code never starts with 0"),
        (1, "14423456789012", .tooLong, "with --country 1 a number has 10 digits, or 11 starting with 1 (North America); this has 14"),
        (nil, "14423456789012", .tooLong, "a North American number (+1) has 11 digits; this has 14"),
        (nil, "+1234567890123456", .tooLong, "E.164 numbers have at most 15 digits; +1 and 15 national digits make 16"),
        (49, "018012345219807", .tooLong, "E.164 numbers have at most 15 digits; +49 and 14 national digits make 16"),
    ] as [(Int?, String, RejectReason, String)])
    func reasonsNameTheRule(_ c: (Int?, String, RejectReason, String)) throws {
        let (country, field, reason, message) = c
        let normalizer = try NumberNormalizer(country: country)
        #expect(normalizer.normalize(field) == .failure(reason))
        let explained = normalizer.explain(field, reason)
        #expect(explained.contains(message), "\(explained)")
        #expect(!explained.contains("(use --country)") || country == nil)
    }

    @Test func countryOptionTakesRegions() {
        #expect(CountryTable.callingCode(parsing: "US") == 1)
        #expect(CountryTable.callingCode(parsing: "ca") == 1)
        #expect(CountryTable.callingCode(parsing: "CH") == 41)
        #expect(CountryTable.callingCode(parsing: "GB") == 44)
        #expect(CountryTable.callingCode(parsing: "+41") == 41)
        #expect(CountryTable.callingCode(parsing: "41") == 41)
        for bad in ["USA", "999", "0", "", "+", "1x", "ZZ", "-1"] {
            #expect(CountryTable.callingCode(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test func lenientTakesWhatCallKitTakes() throws {
        let lenient = try NumberNormalizer(lenient: true)
        #expect(lenient.normalize("+999 123 4567") == .success(.number(9_991_234_567)))
        #expect(lenient.normalize("12010000000") == .success(.number(12_010_000_000)))
        #expect(lenient.normalize("+41 21 213 09 1") == .success(.number(4_121_213_091)))
        #expect(lenient.normalize("+0123456789") == .failure(.missingCountryCode))
        #expect(lenient.normalize("+123456") == .failure(.tooShort))
    }

    /// Without --country, a list of North American numbers written without their 1 would be
    /// read as other countries' numbers: the compile fails, naming the country and the flag,
    /// unless `--international` says the digits are E.164 on purpose (then it warns).
    /// North American E.164 numbers as CallKit writes them (11 digits from 1), their area codes
    /// mostly unassigned (spoofed callers, the benchmarks' corpora): not a national list, though
    /// libphonenumber calls them invalid and Austria's plan reads them as national numbers.
    @Test func northAmericanE164WithUnassignedAreaCodesCompiles() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        var random = SeededGenerator(seed: 7)
        let rows = (0..<300).map { _ in
            "1\(Int.random(in: 200...999, using: &random))\(Int.random(in: 200...999, using: &random))"
                + String(Int.random(in: 10_000...19_999, using: &random)).dropFirst()
        }
        let summary = try compile(block: [folder.write("nanp.txt", rows)], output: folder.file("n.calldir")) {
            $0.sort = true
            $0.dedupe = true
        }
        #expect(summary.blockedNumbers >= 290)
    }

    @Test func nationalListWithoutCountryFails() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let national = (0..<40).map { "\(4_692_576_500 + $0 * 7)\n" }.joined()  // +46 92576...
        let list = folder.write("us.txt", national)
        let error = #expect(throws: CallDirError.self) {
            try compile(block: [list], output: folder.file("a.calldir")) { $0.sort = true }
        }
        #expect(error?.code == .invalidList)
        #expect(error?.message.contains("North American (US)") == true && error?.message.contains("--country 1") == true)
        #expect(error?.message.contains("--international") == true && error?.message.hasSuffix("no index written") == true)
        #expect(!FileManager.default.fileExists(atPath: folder.file("a.calldir")))
        let summary = try compile(block: [list], output: folder.file("a.calldir")) { $0.sort = true; $0.international = true }
        #expect(summary.warnings.count == 1)
        #expect(summary.warnings.first?.contains("compile with --country 1") == true)
        #expect(summary.topCountryCodes.first?.code == 46)
        let us = try compile(block: [list], output: folder.file("b.calldir")) { $0.sort = true; $0.country = 1 }
        #expect(us.warnings.isEmpty && us.blockedNumbers == 40)
        let e164 = folder.write("e164.txt", (0..<40).map { "\(14_692_576_500 + $0 * 7)\n" }.joined())
        #expect(try compile(block: [e164], output: folder.file("c.calldir")) { $0.sort = true }.warnings.isEmpty)
    }
}
