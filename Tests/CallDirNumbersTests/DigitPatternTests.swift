import Testing
import TestSupport
@testable import CallDirNumbers

/// The national prefixes for parsing with a transform rule or `$` (7 main regions: AR, BR, JP,
/// GA, MG, SM, NF; 25 other regions of a shared code: the Caribbean NANP ones, GG, IM, JE, CC,
/// CX) run as `DigitPattern`s; the standard library's `Regex` of the same expression, which
/// runs them as libphonenumber's Python `re` does, is the reference.
@Suite("DigitPattern against Regex")
struct DigitPatternTests {
    @available(iOS 16, macOS 13, *)  // Regex: on an older phone these tests do not run
    @Test func everyRegexPrefixCompiles() {
        let rows = RegexPrefix.regexRows
        #expect(rows.count == 7 + 25)
        for row in rows { #expect(RegexPrefix.patterns[row.id] != nil, "\(row.code): \(row.nationalPrefix)") }
    }

    /// Numbers built from each expression (a random path through it, then 0-12 random digits
    /// unless it went through `$`, sometimes a digit changed), and fully random ones: same match, same transformed number.
    @available(iOS 16, macOS 13, *)
    @Test(arguments: RegexPrefix.regexRows.map(\.id))
    func digitPatternsAgreeWithRegex(id: Int) throws {
        let pattern = try #require(RegexPrefix.patterns[id])
        let row = try #require(RegexPrefix.regexRows.first { $0.id == id })
        let node = try #require(DigitPattern.parse(row.nationalPrefix)).node
        var random = SeededGenerator(seed: UInt64(id))
        var matched = 0
        for round in 0..<3_000 {
            var digits: [UInt8] = []
            if round % 4 != 3 {
                var ended = false
                Self.sample(node, &digits, &ended, &random)
                for _ in 0..<(ended ? 0 : Int.random(in: 0...12, using: &random)) { digits.append(UInt8.random(in: 0...9, using: &random)) }
                if round % 4 == 2, !digits.isEmpty { digits[Int.random(in: 0..<digits.count, using: &random)] = UInt8.random(in: 0...9, using: &random) }
            } else {
                for _ in 0..<Int.random(in: 1...17, using: &random) { digits.append(UInt8.random(in: 0...9, using: &random)) }
            }
            guard digits.count <= Digits.maxAccumulated else { continue }
            var number = Digits()
            for digit in digits { number.append(digit) }
            let fast = pattern.strip(number)
            #expect(fast == RegexReference.strip(number, id: id), "\(row.code) (\(id)): \(digits.map(String.init).joined())")
            if fast != nil { matched += 1 }
        }
        #expect(matched > 1_000)
    }

    /// Appends digits of a random path through `node`; `ended`: the path went through `$`.
    static func sample(_ node: DigitPattern.Node, _ out: inout [UInt8], _ ended: inout Bool, _ random: inout SeededGenerator) {
        switch node {
        case .digits(let mask):
            let choices = (0..<10).filter { mask >> $0 & 1 == 1 }
            out.append(UInt8(choices.randomElement(using: &random)!))
        case .sequence(let items):
            for item in items { sample(item, &out, &ended, &random) }
        case .alternatives(let branches):
            sample(branches.randomElement(using: &random)!, &out, &ended, &random)
        case .group(_, let body):
            sample(body, &out, &ended, &random)
        case .repeated(let body, let min, let max):
            for _ in 0..<Int.random(in: min...(max ?? min + 3), using: &random) { sample(body, &out, &ended, &random) }
        case .end:
            ended = true
        }
    }
}

/// The reference: each prefix as the standard library's `Regex`, run as libphonenumber's Python
/// `re` runs it. It lives in the tests because `Regex` needs iOS 16 and the reader builds for 13.
@available(iOS 16, macOS 13, *)
enum RegexReference {
    /// Each such row's pattern (by `ParsingRules.Row.id`) as a `Regex`, compiled once
    /// (compiling costs far more than matching). Matching one `Regex` from several threads is safe: its compiled program is
    /// immutable.
    nonisolated(unsafe) static let compiled: [Int: (regex: Regex<AnyRegexOutput>, transform: String)] = {
        var table: [Int: (regex: Regex<AnyRegexOutput>, transform: String)] = [:]
        for row in RegexPrefix.regexRows {
            if let regex = try? Regex(row.nationalPrefix) { table[row.id] = (regex, row.transform) }
        }
        return table
    }()

    static func strip(_ number: Digits, id: Int) -> Digits? {
        let text = number.text
        guard let (regex, transform) = compiled[id], let match = try? regex.prefixMatch(in: text) else { return nil }
        let output = match.output
        let rest = text[match.range.upperBound...]
        var result: String
        if transform.isEmpty || output.count < 2 || output[output.count - 1].substring == nil {
            result = String(rest)
        } else {
            result = ""
            var chars = Array(transform)
            var i = 0
            while i < chars.count {
                if chars[i] == "\\", i + 1 < chars.count, let group = chars[i + 1].wholeNumberValue {
                    if group < output.count, let sub = output[group].substring { result += sub }
                    i += 2
                } else {
                    result.append(chars[i])
                    i += 1
                }
            }
            chars.removeAll()
            result += rest
        }
        return Digits(text: result)
    }
}
