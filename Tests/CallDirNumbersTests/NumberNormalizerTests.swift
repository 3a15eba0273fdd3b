import Testing
import CallDirNumbers

@Suite("NumberNormalizer rules")
struct NumberNormalizerTests {
    @Test(arguments: NumberNormalizerTests.internationalCases)
    func international(_ c: Case) throws { try c.check() }

    @Test(arguments: NumberNormalizerTests.northAmericaCases)
    func northAmerica(_ c: Case) throws { try c.check() }

    @Test(arguments: NumberNormalizerTests.nationalCases)
    func nationalWithTrunkPrefixOrNot(_ c: Case) throws { try c.check() }

    @Test(arguments: NumberNormalizerTests.patternCases)
    func wildcardPatterns(_ c: Case) throws { try c.check() }

    @Test(arguments: NumberNormalizerTests.rangeCases)
    func explicitRanges(_ c: Case) throws { try c.check() }

    @Test(arguments: NumberNormalizerTests.malformedCases)
    func malformedFields(_ c: Case) throws { try c.check() }

    @Test func everyRejectReasonIsCovered() {
        let all = Self.internationalCases + Self.northAmericaCases + Self.nationalCases
            + Self.patternCases + Self.rangeCases + Self.malformedCases
        var seen: Set<RejectReason> = []
        for c in all { if case .failure(let reason) = c.expected { seen.insert(reason) } }
        #expect(seen == Set(RejectReason.normalizerReasons))
    }

    @Test(arguments: [1, 7, 33, 36, 39, 41, 44, 351, 998])
    func validCountries(_ code: Int) throws {
        #expect(try NumberNormalizer(country: code).country == code)
    }

    @Test func noCountryByDefault() throws {
        #expect(try NumberNormalizer().country == nil)
    }

    @Test(arguments: [0, -1, -41, 1000, 4141, 999, 42, 80, Int.max, Int.min])
    func invalidCountries(_ code: Int) {
        do {
            _ = try NumberNormalizer(country: code)
            Issue.record("country \(code) was accepted")
        } catch let error as CallDirError {
            #expect(error.code == .usage)
            #expect(error.message.contains("\(code)"))
        } catch {
            Issue.record("not a CallDirError: \(error)")
        }
    }

    @Test func invalidUTF8IsAnInvalidCharacter() throws {
        let normalizer = try NumberNormalizer(country: 1)
        let fields: [[UInt8]] = [
            [0x38, 0x30, 0x30, 0xFF, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35],
            [0x2B, 0x34, 0x31, 0xC2],
            [0x2B, 0x34, 0x31, 0xC2, 0x20, 0x32, 0x31],
            [0x2B, 0x34, 0x31, 0xA0, 0x32, 0x31],
            [0xC0, 0xB1, 0x38, 0x30, 0x30],
            [0x00],
            [0x38, 0x30, 0x30, 0x00, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35, 0x35],
        ]
        for field in fields {
            let result = field.withUnsafeBytes { normalizer.normalize($0) }
            #expect(result == .failure(.invalidCharacter), "\(field)")
        }
    }

    @Test func emptyBufferWithoutAddress() throws {
        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
        #expect(try NumberNormalizer().normalize(empty) == .failure(.empty))
    }

    @Test func bytesAndStringAgree() throws {
        let normalizer = try NumberNormalizer(country: 41)
        for c in Self.nationalCases + Self.patternCases + Self.rangeCases {
            let bytes = Array(c.field.utf8)
            let fromBytes = bytes.withUnsafeBytes { normalizer.normalize($0) }
            #expect(fromBytes == normalizer.normalize(c.field), "\(c.field)")
        }
    }
}

// MARK: - Cases

extension NumberNormalizerTests {
    /// One field, the default country it is read with, and what it must become.
    struct Case: Sendable, CustomTestStringConvertible {
        var field: String
        var country: Int?
        var expected: Result<NormalizedEntry, RejectReason>

        var testDescription: String {
            "\(field.debugDescription) with country \(country.map { String($0) } ?? "none")"
        }

        static func number(_ field: String, _ country: Int?, _ value: Int64) -> Self {
            Self(field: field, country: country, expected: .success(.number(value)))
        }

        static func range(_ field: String, _ country: Int?, _ first: Int64, _ last: Int64) -> Self {
            Self(field: field, country: country, expected: .success(.range(NumberRange(first: first, last: last))))
        }

        static func reject(_ field: String, _ country: Int?, _ reason: RejectReason) -> Self {
            Self(field: field, country: country, expected: .failure(reason))
        }

        func check(sourceLocation: SourceLocation = #_sourceLocation) throws {
            let normalizer = try NumberNormalizer(country: country)
            #expect(normalizer.normalize(field) == expected, "\(testDescription)", sourceLocation: sourceLocation)
        }
    }

    static let nbsp = "\u{00A0}"

    /// Rules 1, 2 and 5 without a default country: E.164 with or without '+'.
    static let internationalCases: [Case] = [
        .number("+1 (800) 555-5555", nil, 1_800_555_5555),
        .number("1-800-555-5555", nil, 1_800_555_5555),
        .number("14085555555", nil, 1_408_555_5555),
        .number("00 41 21 560 12 34", nil, 41_215_601_234),
        .number("+41 21 560 12 34", nil, 41_215_601_234),
        .number("+33 1 62 00 00 00", nil, 33_162_000_000),
        .number("+44 20 7946 0958", nil, 442_079_460_958),
        .number("+1 800/555.5555", nil, 1_800_555_5555),
        .number("+ 1 800 555 5555", nil, 1_800_555_5555),
        .number("+290 2345", nil, 2_902_345),  // St Helena: 4-digit national numbers
        .number("+49 9999 9999 99999", nil, 499_999_999_999_999),
        .number("+41 (0)21 213 09 11", nil, 41_212_130_911),
        .number("+33 (0)1 62 00 00 00", nil, 33_162_000_000),
        .number("0041 (0)21 213 09 11", nil, 41_212_130_911),
        .number("4692576503", nil, 4_692_576_503),  // +46 92576503 is a possible Swedish number
        .reject("(469) 257-6503", nil, .missingCountryCode),
        .reject("469-257-6503", nil, .missingCountryCode),
        .reject("469 257 6503", nil, .missingCountryCode),
        .reject("+999 123 4567", nil, .unknownCountryCode),
        .reject("+80 1234 5678", nil, .unknownCountryCode),
        .number("+44 4123 456789", nil, 444_123_456_789),  // possible (libphonenumber), not valid
        .reject("+46 1234 5678 901", nil, .tooLong),  // Sweden: 6 to 10 or 12 national digits
        .reject("+41 21 213 09 1", nil, .tooShort),  // Switzerland: 9 or 12
        .number("+41 (0)21 213 09 11", 1, 41_212_130_911),
        .number("tel:+1-800-555-5555", nil, 1_800_555_5555),
        .number("TEL:+18005555555", nil, 1_800_555_5555),
        .number(" Tel: +1 800 555 5555 \r\n", nil, 1_800_555_5555),
        .number("\t+41 21 560 12 34\r\n", nil, 41_215_601_234),
        .number("+41\(Self.nbsp)21\(Self.nbsp)560\(Self.nbsp)12\(Self.nbsp)34", nil, 41_215_601_234),
        .number("\(Self.nbsp)+41 21 560 12 34\(Self.nbsp)", nil, 41_215_601_234),
        .reject("0215601234", nil, .missingCountryCode),
        .reject("012", nil, .missingCountryCode),
        .reject("+0 41 21 560 12 34", nil, .missingCountryCode),
        .reject("00 0 41 21 560 12 34", nil, .missingCountryCode),
    ]

    /// Rule 5 with `--country 1`: 10-digit national numbers, 011 and 00 prefixes.
    static let northAmericaCases: [Case] = [
        .number("8005555555", 1, 1_800_555_5555),
        .number("(800) 555-5555", 1, 1_800_555_5555),
        .number("800.555.5555\r", 1, 1_800_555_5555),
        .number("1 800 555 5555", 1, 1_800_555_5555),
        .number("+1 (800) 555-5555", 1, 1_800_555_5555),
        .number("011 44 20 7946 0958", 1, 442_079_460_958),
        .reject("00 44 20 7946 0958", 1, .tooLong),  // 00 is not North America's international prefix
        .reject("0033615188824", 1, .tooLong),
        .number("0033615188824", 41, 33_615_188_824),
        .number("+44 20 7946 0958", 1, 442_079_460_958),
        .number("4692576503", 1, 14_692_576_503),
        .reject("555-1234", 1, .tooShort),
        .reject("0", 1, .tooShort),
        .reject("44207946095", 1, .tooLong),  // +1 44207946095: 11 national digits
        .reject("800555555", 1, .tooShort),
        .reject("07453775817", 1, .tooLong),
        .reject("1111111111", nil, .tooShort),
        .reject("525556979284", 1, .tooLong),
        .reject("4409063055440906271", 1, .tooLong),
        // Possible numbers (libphonenumber), though no area code or exchange starts with 0 or 1.
        .number("0745377581", 1, 10_745_377_581),
        .number("1 080 555 5555", 1, 10_805_555_555),
        .reject("1 180 555 5555", 1, .tooShort),  // 1 + 1 80 555 5555: the second 1 is the national prefix
        .number("1 800 055 5555", 1, 18_000_555_555),
        .number("(800) 155-5555", 1, 18_001_555_555),
        .reject("+1 800 555 555", nil, .tooShort),
        .reject("+1 800 555 55555", nil, .tooLong),
        .number("+1 800 155 5555", nil, 18_001_555_555),
        .reject("00 1 800 555 555", 41, .tooShort),
    ]

    /// Rule 5 with trunk-prefix countries and countries without a trunk prefix.
    static let nationalCases: [Case] = [
        .number("0215601234", 41, 41_215_601_234),
        .number("021 560 12 34", 41, 41_215_601_234),
        .number("41215601234", 41, 41_215_601_234),
        .number("+41 21 560 12 34", 41, 41_215_601_234),
        .number("0041 21 560 12 34", 41, 41_215_601_234),
        .number("+33 1 62 00 00 00", 41, 33_162_000_000),
        .number("01 62 00 00 00", 33, 33_162_000_000),
        .number("020 7946 0958", 44, 442_079_460_958),
        .number("030 1234567", 49, 49_301_234_567),
        .number("8 495 123-45-67", 7, 74_951_234_567),
        .number("06 1 234 5678", 36, 3_612_345_678),
        .number("06 1234 5678", 39, 390_612_345_678),
        .number("+39 06 1234 5678", 39, 390_612_345_678),
        .number("0039 06 1234 5678", 39, 390_612_345_678),
        .number("333 123 4567", 39, 393_331_234_567),
        .number("912 345 678", 34, 34_912_345_678),
        .number("21 234 5678", 351, 351_212_345_678),
        .reject("0 123", 41, .tooShort),
        .reject("0 12 345 67 89 01 234", 41, .tooLong),
        .reject("06 1234 5678 9012 34", 39, .tooLong),
        .number("01 234 5678", 36, 36_012_345_678),  // Hungary's trunk prefix is 06; +36 012345678 is possible
    ]

    /// Rules 3 and 6 for '#' wildcard patterns.
    static let patternCases: [Case] = [
        .range("33162######", nil, 33_162_000_000, 33_162_999_999),
        .range("+41 21 560 ## ##", nil, 41_215_600_000, 41_215_609_999),
        .range("+4121560####", nil, 41_215_600_000, 41_215_609_999),
        .range("021 560 ## ##", 41, 41_215_600_000, 41_215_609_999),
        .range("33162######", 33, 33_162_000_000, 33_162_999_999),
        .range("0162######", 33, 33_162_000_000, 33_162_999_999),
        .range("800 555 ####", 1, 1_800_555_0000, 1_800_555_9999),
        .range("+1 800 555 ####", nil, 1_800_555_0000, 1_800_555_9999),
        .range("+1 800 ### ####", nil, 1_800_000_0000, 1_800_999_9999),
        .range("+44 20 ########", nil, 442_000_000_000, 442_099_999_999),
        .range("+49 9999 9999 9999#", nil, 499_999_999_999_990, 499_999_999_999_999),
        .reject("+4121560#1##", nil, .invalidPattern),
        .reject("+41 21 560 ## #1", nil, .invalidPattern),
        .reject("+44 ##########", nil, .invalidPattern),
        .reject("0##########", 44, .invalidPattern),
        .reject("00 #########", nil, .invalidPattern),
        .reject("###########", nil, .invalidPattern),
        .reject("+1 ## ### ####", nil, .invalidPattern),
        .reject("+1 0## ### ####", nil, .invalidPattern),
        .reject("+1 800 1## ####", nil, .invalidAreaCode),
        .reject("+1 0800 ### ###", nil, .invalidAreaCode),
        .reject("+44 4123 ######", nil, .invalidLeadingDigit),
        .reject("3316##", nil, .tooShort),
        .reject("3316212345#####", 1, .tooLong),
        .reject("33162#########", 1, .tooLong),
        .reject("3316212345678###", nil, .tooLong),
        .reject("0162######", nil, .missingCountryCode),
    ]

    /// Rule 4: explicit ranges.
    static let rangeCases: [Case] = [
        .range("33162000000-33162999999", nil, 33_162_000_000, 33_162_999_999),
        .range("33162000000 - 33162999999", nil, 33_162_000_000, 33_162_999_999),
        .range("33162000000 -33162999999", nil, 33_162_000_000, 33_162_999_999),
        .range("33162000000\(Self.nbsp)-\(Self.nbsp)33162999999", nil, 33_162_000_000, 33_162_999_999),
        .range("33162000000..33162999999", nil, 33_162_000_000, 33_162_999_999),
        .range("33162000000-33162000000", nil, 33_162_000_000, 33_162_000_000),
        .range("+1 800 555 0000 - +1 800 555 0099", nil, 1_800_555_0000, 1_800_555_0099),
        .range("1-800-555-0000 - 1-800-555-0099", nil, 1_800_555_0000, 1_800_555_0099),
        .range("800 555 0000 - 800 555 0099", 1, 1_800_555_0000, 1_800_555_0099),
        .range("+41 21 560 12 00 .. +41 21 560 12 99", nil, 41_215_601_200, 41_215_601_299),
        .range("021 560 12 00 - 021 560 12 99", 41, 41_215_601_200, 41_215_601_299),
        .range("+41215601200-+41215601299", nil, 41_215_601_200, 41_215_601_299),
        .reject("555-1234", nil, .tooShort),  // not a range: +55 51234, too short for Brazil
        .number("1-800-555-5555", 1, 1_800_555_5555),
        .number("1 - 800 - 555 - 5555", nil, 1_800_555_5555),
        .number("3316200000-5", nil, 33_162_000_005),
        .number("1...800...555...5555", nil, 1_800_555_5555),
        .reject("3316200000-33162999999", nil, .invalidRange),
        .reject("33162999999-33162000000", nil, .invalidRange),
        .reject("33162000000 - 33161999999", nil, .invalidRange),
        .reject("33162###### - 33163######", nil, .invalidRange),
        .reject("33162######-33163######", nil, .invalidRange),
        .reject("33162000000 - 12", nil, .invalidRange),
        .reject("33162000000 - ", nil, .invalidRange),
        .reject("- 33162000000", nil, .invalidRange),
        .reject("0215601200 - 0215601299", nil, .invalidRange),
        .reject("33162000000 - 33162000099..3", nil, .invalidRange),
        .reject("33162000000-3316299999x", nil, .invalidCharacter),
        .reject("33162000000 - 3316+2999999", nil, .invalidCharacter),
    ]

    /// Rules 1, 2 and 6: what is not a number at all.
    static let malformedCases: [Case] = [
        .reject("", nil, .empty),
        .reject("   ", 1, .empty),
        .reject("\r\n", nil, .empty),
        .reject("tel:", nil, .empty),
        .reject(" TEL:  ", nil, .empty),
        .reject("+", nil, .empty),
        .reject("( ) - .", 1, .empty),
        .reject("800 555 55 55!", 1, .invalidCharacter),
        .reject("+1 800 555 5555 ext", nil, .invalidCharacter),
        .reject("1,800,555,5555", nil, .invalidCharacter),
        .reject("+1\t800 555 5555", nil, .invalidCharacter),
        .reject("(+1) 800 555 5555", nil, .invalidCharacter),
        .reject("++1 800 555 5555", nil, .invalidCharacter),
        .reject("+1 800 555 5555+", nil, .invalidCharacter),
        .reject("\u{FF0B}", nil, .invalidCharacter),
        .reject("\u{0661}\u{0662}\u{0663}", nil, .emergencyNumber),  // 123 (Colombia, ...), as libphonenumber reads it
        .reject("\u{0661}\u{0662}\u{0663}\u{0664}", nil, .invalidCharacter),
        .reject("+41\u{2009}21 560 12 34", nil, .invalidCharacter),
        .reject("tel:tel:+1800", nil, .invalidCharacter),
        .reject("call:+1800", nil, .invalidCharacter),
        .reject("+412345", nil, .tooShort),
        .reject("12345678901234567890", nil, .tooLong),
        .reject("12345678901234567890", 1, .tooLong),
        .reject("+1234567890123456", nil, .tooLong),
        .reject(String(repeating: "9", count: 1000), 41, .tooLong),
        .reject(String(repeating: "98 ", count: 1000), nil, .tooLong),
        .reject("+" + String(repeating: "#", count: 40), nil, .invalidPattern),
    ]
}

@Suite("NumberNormalizer: no guessing for trunk-prefix countries")
struct NumberNormalizerNoGuessTests {
    @Test("digits without trunk prefix are a national number, as libphonenumber reads them")
    func lostTrunkPrefix() throws {
        let swiss = try NumberNormalizer(country: 41)
        #expect(swiss.normalize("215601234") == .success(.number(41_215_601_234)))
        #expect(swiss.normalize("41215601234") == .success(.number(41_215_601_234)))
        #expect(swiss.normalize("021 560 12 34") == .success(.number(41_215_601_234)))
        #expect(swiss.normalize("+33 1 62 00 00 00") == .success(.number(33_162_000_000)))
        let french = try NumberNormalizer(country: 33)
        #expect(french.normalize("33162######") == .success(.range(NumberRange(first: 33_162_000_000, last: 33_162_999_999))))
    }
}
