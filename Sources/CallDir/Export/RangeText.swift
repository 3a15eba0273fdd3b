import CallDirNumbers
import CallDirReader
/// How an index range is written in list formats that calldir reads back: pieces of text
/// that each normalise (without `--country`) to a range or number inside it and together
/// cover it exactly. Compiling the pieces merges (blocking) or joins (identification, one
/// label) them back into the one stored range.
///
/// A range that is exactly a `#` pattern is written as one (`33162######`); otherwise
/// `FIRST-LAST` when `spans` is allowed and both ends are valid numbers of one length;
/// otherwise it is split at a change of length and into aligned blocks of 10^k numbers, each
/// written the same way. A stored range can have ends that are not valid numbers on their own
/// (`1800#######` begins at 18000000000, whose exchange is 000), hence the checks.
struct RangeText {
    let spans: Bool
    private let normalizer: NumberNormalizer

    init(spans: Bool) {
        self.spans = spans
        normalizer = NumberNormalizer.northAmericanRulesOnly()
    }

    /// Calls `body` with the pieces of `range`, ascending.
    func pieces(_ range: NumberRange, _ body: (String) throws -> Void) throws {
        var start = range.first
        while start <= range.last {
            let end = try piece(from: start, to: range.last, body)
            if end == range.last { return }
            start = end + 1
        }
    }

    /// Writes the longest representable piece starting at `a` and ending at or before `b`;
    /// returns its last number.
    private func piece(from a: Int64, to b: Int64, _ body: (String) throws -> Void) throws -> Int64 {
        let b = min(b, E164Digits.power(E164.digitCount(a)) - 1)  // the last number of a's length
        if let text = pattern(a, b) ?? span(a, b) ?? (spans ? nil : plain(a, b)) {
            try body(text)
            return b
        }
        var k = 0  // the largest aligned block of 10^k numbers at a that fits in [a, b]
        while k < 15, a % E164Digits.power(k + 1) == 0, a + E164Digits.power(k + 1) - 1 <= b { k += 1 }
        if a + E164Digits.power(k) - 1 == b {  // [a, b] is that block, and not valid as one: its tenths
            guard k > 0 else { throw unrepresentable(a) }
            k -= 1
        }
        return try piece(from: a, to: a + E164Digits.power(k) - 1, body)
    }

    /// `P###` when [a, b] is exactly the numbers of one pattern that normalises back to it.
    private func pattern(_ a: Int64, _ b: Int64) -> String? {
        var k = 0
        while k < 15, a % E164Digits.power(k + 1) == 0, b - a + 1 >= E164Digits.power(k + 1) { k += 1 }
        guard k > 0, b - a + 1 == E164Digits.power(k) else { return nil }
        let digits = String(a)
        let text = String(digits.dropLast(k)) + String(repeating: "#", count: k)
        return reads(text, as: .range(NumberRange(first: a, last: b))) ? text : nil
    }

    private func span(_ a: Int64, _ b: Int64) -> String? {
        guard spans else { return nil }
        let text = "\(a)-\(b)"
        return reads(text, as: .range(NumberRange(first: a, last: b))) ? text : nil
    }

    /// A lone number in a pattern-only format (it becomes an exact entry when read back).
    private func plain(_ a: Int64, _ b: Int64) -> String? {
        a == b && reads(String(a), as: .number(a)) ? String(a) : nil
    }

    private func reads(_ text: String, as expected: NormalizedEntry) -> Bool {
        var text = text
        return text.withUTF8 { normalizer.normalize(UnsafeRawBufferPointer($0)) } == .success(expected)
    }

    private func unrepresentable(_ number: Int64) -> CallDirError {
        CallDirError(.badInput, "the range holding \(number) cannot be written as patterns or FIRST-LAST ranges "
                     + "(\(number) is not a valid number on its own); export with --ranges expand")
    }
}

/// Decimal facts about E.164 values.
enum E164Digits {
    static func power(_ k: Int) -> Int64 {
        var p: Int64 = 1
        for _ in 0..<k { p *= 10 }
        return p
    }
}
