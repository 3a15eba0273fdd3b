import CallDirNumbers

/// `NumberTypes`' DFA laid out for the walk: immortal memory read through raw pointers (no
/// reference counting, no bounds checks, no allocation per number), 10 next states of 16 bits
/// a state (20 bytes: the 113 KB fit in L2), and a number's digits spelled 8 at a time into
/// the bytes of a word (no division per digit). One walk per number, one table read per digit.
struct TypeWalk: @unchecked Sendable {
    /// 10 entries a state: the next state per digit. State 0 admits no number, state 1 starts.
    let next: UnsafeMutablePointer<UInt16>
    /// Per state: the type of a number whose last digit leads there (`NumberType.index` + 1,
    /// 0: not valid).
    let kinds: UnsafeMutablePointer<UInt8>
    let stateCount: Int

    static let start = 1

    /// `table` as the generator writes it: 11 entries a state, the next state per digit, then
    /// the kind.
    init(_ table: [UInt16]) {
        stateCount = table.count / 11
        next = .allocate(capacity: stateCount * 10)
        kinds = .allocate(capacity: stateCount)
        for state in 0..<stateCount {
            for digit in 0..<10 {
                // Out-of-range targets (a corrupt table) go to the state that admits nothing.
                let target = table[state * 11 + digit]
                next[state * 10 + digit] = Int(target) < stateCount ? target : 0
            }
            kinds[state] = UInt8(truncatingIfNeeded: table[state * 11 + 10])
        }
    }

    /// The kind of the state the digits of `number` (> 0) lead to, first digit first.
    @inline(__always)
    func kind(ofE164 number: Int64) -> UInt8 {
        var value = UInt64(number)
        var state = Self.start
        if value >= 10_000_000_000_000_000 {  // 17 to 19 digits: none valid, walked all the same
            state = walk(value / 10_000_000_000_000_000, from: state)
            value %= 10_000_000_000_000_000
        }
        state = walk(value / 100_000_000, from: state)
        state = walk(value % 100_000_000, from: state)
        return kinds[state]
    }

    /// Walks the 8 digits of `chunk` (< 10^8, leading zeros included); from the start state,
    /// leading zeros are skipped (the start state stays where it is on a 0).
    @inline(__always)
    func walk(_ chunk: UInt64, from start: Int) -> Int {
        var bytes = digitBytes(chunk)
        var count = 8
        if start == Self.start {
            let zeros = bytes.trailingZeroBitCount &>> 3  // 8 for chunk 0
            bytes = bytes &>> UInt64(truncatingIfNeeded: zeros &<< 3)
            count &-= zeros
        }
        var state = start
        while count > 0 {
            state = Int(truncatingIfNeeded: next[state &* 10 &+ Int(truncatingIfNeeded: bytes & 0xFF)])
            bytes &>>= 8
            count &-= 1
        }
        return state
    }
}
