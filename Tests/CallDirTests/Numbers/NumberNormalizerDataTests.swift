import CallDir
import Foundation
import Testing
import CallDirReader
import TestSupport

@Suite("NumberNormalizer properties and real data")
struct NumberNormalizerDataTests {
    /// Every way people write one North American number gives the same Int64.
    @Test func northAmericanFormatsAgree() throws {
        let international = try NumberNormalizer()
        let northAmerica = try NumberNormalizer(country: 1)
        let swiss = try NumberNormalizer(country: 41)
        var random = SeededGenerator(seed: 2024)
        for _ in 0..<5_000 {
            let area = Int.random(in: 200...999, using: &random)
            let exchange = Int.random(in: 200...999, using: &random)
            let line = Int.random(in: 0...9999, using: &random)
            let a = String(area), e = String(exchange), l = String(format: "%04d", line)
            let expected = Result<NormalizedEntry, RejectReason>.success(
                .number(Int64("1\(a)\(e)\(l)")!))
            let styles: [(NumberNormalizer, String)] = [
                (international, "+1 (\(a)) \(e)-\(l)"),
                (international, "1-\(a)-\(e)-\(l)"),
                (international, "1\(a)\(e)\(l)"),
                (international, "tel:+1-\(a)-\(e)-\(l)"),
                (international, "001 \(a) \(e) \(l)"),
                (international, "+1\u{00A0}\(a)\u{00A0}\(e)\u{00A0}\(l)"),
                (northAmerica, "(\(a)) \(e)-\(l)"),
                (northAmerica, "\(a).\(e).\(l)"),
                (northAmerica, "\(a)/\(e) \(l)\r\n"),
                (northAmerica, "\(a)\(e)\(l)"),
                (northAmerica, "1 \(a) \(e) \(l)"),
                (northAmerica, "011 1 \(a) \(e) \(l)"),
                (swiss, "+1 \(a) \(e) \(l)"),
                (swiss, "00 1 \(a) \(e) \(l)"),
            ]
            for (normalizer, field) in styles {
                #expect(normalizer.normalize(field) == expected, "\(field)")
            }
        }
    }

    /// Plain digit fields take an 8-bytes-at-a-time fast path; a trailing `.` forces the
    /// byte-by-byte scanner. Both must always agree. (Not parentheses: `(469) ...` without
    /// --country is refused as a national number.)
    @Test(arguments: [nil, 1, 39, 41] as [Int?])
    func fastPathAgreesWithScanner(country: Int?) throws {
        let normalizer = try NumberNormalizer(country: country)
        var random = SeededGenerator(seed: 7 + UInt64(country ?? 0))
        for _ in 0..<20_000 {
            let length = Int.random(in: 1...20, using: &random)
            let digits = String((0..<length).map { _ in "0123456789".randomElement(using: &random)! })
            #expect(normalizer.normalize(digits) == normalizer.normalize("\(digits)."), "\(digits)")
        }
    }

    /// Punctuated fields (`+41 (0)21 560-12-34`, `(11) 96127-0609`, ranges, `..`) are read in one
    /// pass when written the usual ways (`simpleNumberDigits`), else by the scanner. A trailing
    /// NBSP, which means nothing, sends a field to the scanner: both must always agree.
    @Test(arguments: [nil, 1, 39, 41, 44, 54, 55, 81] as [Int?])
    func punctuatedFastPathAgreesWithScanner(country: Int?) throws {
        let normalizer = try NumberNormalizer(country: country)
        var random = SeededGenerator(seed: 33 + UInt64(country ?? 0))
        let pieces = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "0", "1", "5", "9", " ", "-", "(", ")", "(0)", ".", "/"]
        var read = 0
        for _ in 0..<20_000 {
            let length = Int.random(in: 1...22, using: &random)
            var field = (0..<length).map { _ in pieces.randomElement(using: &random)! }.joined()
            if Bool.random(using: &random) { field = "+" + field }
            field = field.trimmingCharacters(in: .whitespaces)  // a `-` beside the NBSP would be spaced
            guard !field.hasSuffix("-"), !field.hasPrefix("-") else { continue }
            let result = normalizer.normalize(field)
            #expect(result == normalizer.normalize(field + "\u{A0}"), "\(field)")
            if case .success = result { read += 1 }
        }
        #expect(read > 1_000)
    }

    /// A byte that is not a digit, at any position of a field of 8 to 16 bytes, is seen.
    @Test func fastPathSeesEveryByte() throws {
        let normalizer = try NumberNormalizer(lenient: true)  // 444... is no country's number
        let intruders: [UInt8] = [0x00, 0x21, 0x2C, 0x3A, 0x40, 0x7F, 0x80, 0xB9, 0xF9, 0xFA, 0xFF]
        for length in 8...16 {
            for position in 0..<length {
                for intruder in intruders {
                    var field = Array(repeating: UInt8(ascii: "9"), count: length)
                    field[position] = intruder
                    let result = field.withUnsafeBytes { normalizer.normalize($0) }
                    // A comma before at most 9 digits starts an extension, as libphonenumber
                    // reads `+33 1 62 00 00 42,123`: the digits before it are the number.
                    let before = String(decoding: field[..<position], as: UTF8.self)
                    if intruder == 0x2C, length - position - 1 <= 9, position < length - 1, case .success = normalizer.normalize(before) {
                        #expect(result == normalizer.normalize(before), "\(field)")
                        continue
                    }
                    #expect(result == .failure(.invalidCharacter), "\(field)")
                }
            }
        }
        for length in 8...16 {
            let field = String(repeating: "4", count: length)
            let expected: Result<NormalizedEntry, RejectReason> =
                length <= 15 ? .success(.number(Int64(field)!)) : .failure(.tooLong)
            #expect(normalizer.normalize(field) == expected)
            if length < 15 {
                let first = Int64(field + "0")!
                #expect(normalizer.normalize(field + "#") == .success(.range(NumberRange(first: first, last: first + 9))))
            }
        }
    }

    /// Arbitrary bytes never trap, and whatever is accepted is a possible E.164 number.
    @Test(arguments: [nil, 1, 36, 39, 41] as [Int?])
    func arbitraryBytesAreSafe(country: Int?) throws {
        let normalizer = try NumberNormalizer(country: country)
        let alphabet: [UInt8] = Array("0123456789000111#+-. ()/\t\r\nxtel:".utf8) + [0xC2, 0xA0, 0xFF, 0x00, 0x80]
        var random = SeededGenerator(seed: UInt64(country ?? 0))
        var bytes = [UInt8]()
        for _ in 0..<50_000 {
            bytes.removeAll(keepingCapacity: true)
            for _ in 0..<Int.random(in: 0...40, using: &random) {
                bytes.append(alphabet.randomElement(using: &random)!)
            }
            let result = bytes.withUnsafeBytes { normalizer.normalize($0) }
            switch result {
            case .success(.number(let value)):
                #expect(E164.validValues.contains(value) && (7...15).contains(E164.digitCount(value)))
            case .success(.range(let range)):
                #expect(E164.validValues.contains(range.first) && E164.validValues.contains(range.last))
                #expect(E164.digitCount(range.first) == E164.digitCount(range.last))
            case .failure:
                break
            }
        }
    }

    @Test(.enabled(if: NumberNormalizerDataTests.realDataExists("ftc-dnc-complaints-90days.csv"), "needs ../shared/realdata/ftc-dnc-complaints-90days.csv: skipped"))
    func ftcComplaintsWithCountry1() throws {
        let normalizer = try NumberNormalizer(country: 1)
        var accepted = 0
        var rejected: [RejectReason: Int] = [:]
        var international = 0
        var unexpected: [String] = []
        let rows = try Self.forEachLine(of: Self.realDataPath("ftc-dnc-complaints-90days.csv"), headerLines: 1) { field in
            switch normalizer.normalize(field) {
            case .success(.number(let value)):
                accepted += 1
                if (10_000_000_000...19_999_999_999).contains(value) { break }
                // North America's international prefix is 011; 00 is not (0033615188824 is
                // refused, not read as French).
                if field.starts(with: "011".utf8) {
                    international += 1
                } else {
                    unexpected.append(String(decoding: field, as: UTF8.self))
                }
            case .success(.range):
                unexpected.append(String(decoding: field, as: UTF8.self))
            case .failure(let reason):
                rejected[reason, default: 0] += 1
            }
        }
        let rejectedTotal = rejected.values.reduce(0, +)
        let reasons = rejected.sorted { $0.key < $1.key }.map { "\($0.key.rawValue) \($0.value)" }
        print("FTC: \(rows) rows, \(accepted) accepted (\(international) with 00/011), rejected: \(reasons)")
        #expect(rows == 337_810)
        #expect(accepted + rejectedTotal == rows)
        #expect(accepted >= 330_000)
        #expect(international <= 10)
        #expect(rejected[.tooLong, default: 0] >= 4, "the 00-prefixed rows")
        #expect(unexpected == [], "accepted numbers that are not 1 + 10 digits")
    }

    @Test(.enabled(if: NumberNormalizerDataTests.realDataExists("swiss-spam-numbers.txt"), "needs ../shared/realdata/swiss-spam-numbers.txt: skipped"), arguments: [nil, 41] as [Int?])
    func swissSpamNumbers(country: Int?) throws {
        let normalizer = try NumberNormalizer(country: country)
        var swiss = 0
        let rows = try Self.forEachLine(of: Self.realDataPath("swiss-spam-numbers.txt")) { field in
            if case .success(.number(let value)) = normalizer.normalize(field), String(value).hasPrefix("41") {
                swiss += 1
            }
        }
        #expect(rows == 1_690)
        #expect(swiss == rows)
    }

    @Test(.enabled(if: NumberNormalizerDataTests.realDataExists("swiss-spam-patterns.txt"), "needs ../shared/realdata/swiss-spam-patterns.txt: skipped"), arguments: [nil, 41] as [Int?])
    func swissSpamPatterns(country: Int?) throws {
        let normalizer = try NumberNormalizer(country: country)
        var ranges = 0
        let rows = try Self.forEachLine(of: Self.realDataPath("swiss-spam-patterns.txt")) { field in
            if case .success(.range(let range)) = normalizer.normalize(field),
               String(range.first).hasPrefix("41"), range.count >= 100
            {
                ranges += 1
            }
        }
        #expect(rows == 56)
        #expect(ranges == rows)
    }
}

// MARK: - Helpers

extension NumberNormalizerDataTests {
    /// `../shared/realdata` next to the package root.
    static let realDataFolder = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/realdata").path

    static func realDataPath(_ name: String) -> String { realDataFolder + "/" + name }

    static func realDataExists(_ name: String) -> Bool {
        FileManager.default.fileExists(atPath: realDataPath(name))
    }

    /// Calls `body` with each line of a file as raw bytes, line end included except the LF,
    /// skipping `headerLines` lines. Returns the number of lines passed to `body`.
    @discardableResult
    static func forEachLine(
        of path: String, headerLines: Int = 0, _ body: (UnsafeRawBufferPointer) -> Void
    ) throws -> Int {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return data.withUnsafeBytes { bytes in
            var count = 0
            var lineIndex = 0
            var start = 0
            while start < bytes.count {
                let newline = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
                if lineIndex >= headerLines {
                    body(UnsafeRawBufferPointer(rebasing: bytes[start..<newline]))
                    count += 1
                }
                lineIndex += 1
                start = newline + 1
            }
            return count
        }
    }
}
