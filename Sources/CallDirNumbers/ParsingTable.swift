/// `ParsingRules`' rules and DFAs laid out for the hot path: memory allocated once and never
/// freed, read through plain pointers (no reference counting, no bounds checks, no lazy global
/// to check per read). `ParsingRules.table` builds the rules on first use, so that a lookup which
/// never parses a field (a plain 11-digit number) does not build them; the DFAs are C constants.
struct ParsingTable: @unchecked Sendable {
    /// 11 entries a state: the next state per digit (0xFFFF: none), then 1 if it accepts.
    let dfa: UnsafePointer<UInt16>
    /// By calling code 0...999; code 0 where no country uses the code.
    let rules: UnsafePointer<ParsingRules.Rules>

    init(rows: [ParsingRules.Row], dfa: UnsafePointer<UInt16>) {
        self.dfa = dfa
        let none = ParsingRules.Rules(code: 0, id: 0, patternStart: 0, lengths: 0, localLengths: 0, hasNationalPrefix: false,
                                      literalPrefix: nil, prefixStart: -1, regexPretest: -1)
        let rules = UnsafeMutablePointer<ParsingRules.Rules>.allocate(capacity: 1000)
        rules.initialize(repeating: none, count: 1000)
        for row in rows { rules[row.code] = ParsingRules.Rules(row) }
        self.rules = UnsafePointer(rules)
    }

    /// The state after `digit`, -1 for none.
    @inline(__always)
    func next(_ state: Int, _ digit: Int) -> Int {
        let next = dfa[state &* 11 &+ digit]
        return next == 0xFFFF ? -1 : Int(truncatingIfNeeded: next)
    }

    @inline(__always)
    func accepts(_ state: Int) -> Bool { dfa[state &* 11 &+ 10] == 1 }
}

/// The literal digits of a `Digits` (at most `maxAccumulated`), first to last, spelled 8 at a
/// time into the bytes of a word (`digitBytes`): a DFA walk with no division per digit.
struct DigitWalk {
    private var word: UInt64
    private var inWord: Int
    private var following: (UInt64, UInt64)
    private var wordsLeft: Int

    @inline(__always)
    init(_ digits: Digits) {
        let n = digits.literal
        let value = digits.value
        let low = digitBytes(value % 100_000_000)
        if n <= 8 {
            word = low &>> UInt64(truncatingIfNeeded: 8 &* (8 &- n))
            inWord = n
            following = (0, 0)
            wordsLeft = 0
        } else if n <= 16 {
            word = digitBytes(value / 100_000_000) &>> UInt64(truncatingIfNeeded: 8 &* (16 &- n))
            inWord = n &- 8
            following = (low, 0)
            wordsLeft = 1
        } else {
            word = digitBytes(value / 10_000_000_000_000_000) &>> UInt64(truncatingIfNeeded: 8 &* (24 &- n))
            inWord = n &- 16
            following = (digitBytes(value / 100_000_000 % 100_000_000), low)
            wordsLeft = 2
        }
    }

    @inline(__always)
    mutating func next() -> Int? {
        if inWord == 0 {
            guard wordsLeft > 0 else { return nil }
            word = following.0
            following.0 = following.1
            wordsLeft &-= 1
            inWord = 8
        }
        let digit = Int(truncatingIfNeeded: word & 0xFF)
        word &>>= 8
        inWord &-= 1
        return digit
    }
}
