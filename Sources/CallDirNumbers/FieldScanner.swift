/// 10^n for n in 0...19 (the powers that fit in a UInt64): a switch the compiler turns into
/// a constant table, where a global array would be checked for its lazy initialisation at
/// every read.
@inline(__always)
func powerOfTen(_ n: Int) -> UInt64 {
    switch n {
    case 0: 1
    case 1: 10
    case 2: 100
    case 3: 1_000
    case 4: 10_000
    case 5: 100_000
    case 6: 1_000_000
    case 7: 10_000_000
    case 8: 100_000_000
    case 9: 1_000_000_000
    case 10: 10_000_000_000
    case 11: 100_000_000_000
    case 12: 1_000_000_000_000
    case 13: 10_000_000_000_000
    case 14: 100_000_000_000_000
    case 15: 1_000_000_000_000_000
    case 16: 10_000_000_000_000_000
    case 17: 100_000_000_000_000_000
    case 18: 1_000_000_000_000_000_000
    default: 10_000_000_000_000_000_000
    }
}

/// The digits of a number or wildcard pattern, kept as an integer so nothing is allocated:
/// `literal` digits whose value is `value`, followed by `wildcards` '#'. Because the digit
/// count is kept, leading zeros are not lost (`0041` is value 41, literal 4).
struct Digits: Equatable {
    /// At most this many literal digits are accumulated; longer fields are too long anyway.
    static let maxAccumulated = 18

    var value: UInt64 = 0
    var literal = 0
    var wildcards = 0

    /// Literal digits plus wildcards: the length of the numbers the pattern stands for.
    var total: Int { literal + wildcards }

    @inline(__always)
    mutating func append(_ digit: UInt8) {
        if literal < Self.maxAccumulated { value = value &* 10 &+ UInt64(digit) }
        literal += 1
    }

    /// Whether the literal digits start with `prefix` written with `length` digits
    /// (`startsWith(0, length: 2)` tests for `00`). Needs `literal <= maxAccumulated`.
    @inline(__always)
    func startsWith(_ prefix: UInt64, length: Int) -> Bool {
        guard literal >= length else { return false }
        let scale = powerOfTen(literal - length)
        return prefix * scale <= value && value < (prefix + 1) * scale
    }

    /// Removes a leading `prefix` of `length` digits that `startsWith` has confirmed.
    @inline(__always)
    func dropping(_ prefix: UInt64, length: Int) -> Digits {
        let rest = literal - length
        return Digits(value: value - prefix * powerOfTen(rest), literal: rest, wildcards: wildcards)
    }

    /// A 0 inserted after the first `count` literal digits. Needs `literal < maxAccumulated`.
    @inline(__always)
    func insertingZero(after count: Int) -> Digits {
        let scale = powerOfTen(literal - count)
        return Digits(value: value / scale * scale * 10 + value % scale, literal: literal + 1, wildcards: wildcards)
    }

    /// Puts a calling code of `length` digits in front. Needs `total + length <= 18`.
    @inline(__always)
    func prepending(_ code: UInt64, length: Int) -> Digits {
        Digits(value: code * powerOfTen(literal) + value, literal: literal + length, wildcards: wildcards)
    }
}

/// Where a field may split into the two ends of an explicit range.
struct RangeSeparators {
    /// `-` with a space or NBSP on at least one side.
    var spacedDashes = 0
    var lastSpacedDash = 0
    /// Every `-`, and the digits and wildcards before the last one.
    var dashes = 0
    var lastDash = 0
    var totalBeforeLastDash = 0
    /// `..` (overlapping pairs count twice: `...` is not one separator).
    var dotPairs = 0
    var lastDotPair = 0
}

/// What one pass over a field found: its digits, sign, wildcard order and separators.
struct FieldScan {
    var digits = Digits()
    /// A `+` came first (only spaces before it).
    var plus = false
    /// A `+` came anywhere else.
    var misplacedPlus = false
    /// A digit followed a `#`.
    var digitAfterWildcard = false
    /// A byte that is neither a digit, `#`, `+` nor allowed punctuation.
    var invalidCharacter = false
    var separators = RangeSeparators()
    /// How many digits came before a `(0)` the scan dropped (0: none). Only patterns drop it
    /// (`+41 (0)21 560 ## ##`); a number puts it back and is parsed as libphonenumber does.
    var droppedZeroAfter = 0

    /// Scans `bytes[start..<end]` once. Allowed besides digits, `#` and a leading `+`:
    /// space, `-`, `.`, `(`, `)`, `/` and NBSP (C2 A0). Stops at the first invalid byte.
    init(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) {
        var onlySpaces = true
        var i = start
        while i < end {
            let byte = bytes[i]
            let digit = byte &- 0x30
            if digit < 10 {
                if digits.wildcards > 0 { digitAfterWildcard = true }
                digits.append(digit)
                onlySpaces = false
                i += 1
                continue
            }
            switch byte {
            case 0x20:  // space
                break
            case 0xC2:  // NBSP is C2 A0; any other non-ASCII byte is invalid
                guard i + 1 < end, bytes[i + 1] == 0xA0 else { invalidCharacter = true; return }
                i += 1
            case 0x23:  // #
                digits.wildcards += 1
                onlySpaces = false
            case 0x2B:  // +
                if onlySpaces { plus = true } else { misplacedPlus = true }
                onlySpaces = false
            case 0x2D:  // -
                noteDash(at: i, bytes, from: start, to: end)
                onlySpaces = false
            case 0x2E:  // .
                if i + 1 < end, bytes[i + 1] == 0x2E {
                    separators.dotPairs += 1
                    separators.lastDotPair = i
                }
                onlySpaces = false
            case 0x28:  // (
                // `+41 (0)21 ...`: the trunk prefix written after the country code is not
                // dialled from abroad; dropped after `+` or `00` and a 1-3 digit code.
                if i + 2 < end, bytes[i + 1] == 0x30, bytes[i + 2] == 0x29, digits.wildcards == 0,
                   plus ? (1...3).contains(digits.literal)
                        : (3...5).contains(digits.literal) && digits.startsWith(0, length: 2)
                {
                    droppedZeroAfter = digits.literal
                    i += 2
                }
                onlySpaces = false
            case 0x29, 0x2F:  // ) /
                onlySpaces = false
            default:
                invalidCharacter = true
                return
            }
            i += 1
        }
    }

    private mutating func noteDash(at i: Int, _ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) {
        separators.dashes += 1
        separators.lastDash = i
        separators.totalBeforeLastDash = digits.total
        let spaceBefore = i > start
            && (bytes[i - 1] == 0x20 || (bytes[i - 1] == 0xA0 && i - 1 > start && bytes[i - 2] == 0xC2))
        let spaceAfter = i + 1 < end
            && (bytes[i + 1] == 0x20 || (bytes[i + 1] == 0xC2 && i + 2 < end && bytes[i + 2] == 0xA0))
        if spaceBefore || spaceAfter {
            separators.spacedDashes += 1
            separators.lastSpacedDash = i
        }
    }
}

// MARK: - Eight digits at a time

/// A field written the usual ways, read in one pass with nothing stored but the result:
/// digits, an optional leading `+`, and space, one `(`, `)`, `/`, `.` and `-` between them,
/// with fewer than `Digits.maxAccumulated` digits. Nil for anything else, which `FieldScan`
/// reads (NBSP, `#`, `..`, a `-` beside a space or between two numbers: what may be a range; a
/// second `(`; any other byte). A `(0)` is read as the 0 it is: `FieldScan` drops it, and a
/// number puts it back.
@inline(__always)
func simpleNumberDigits(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> (digits: Digits, plus: Bool)? {
    var i = start
    let plus = bytes[i] == 0x2B
    if plus { i &+= 1 }
    var value: UInt64 = 0
    var count = 0
    var dashes = 0
    var beforeDash = 0
    var opened = false
    while i < end {
        let byte = bytes[i]
        let digit = byte &- 0x30
        if digit < 10 {
            value = value &* 10 &+ UInt64(digit)
            count &+= 1
        } else if byte == 0x2D {  // -
            if i > start && bytes[i &- 1] == 0x20 || i &+ 1 < end && bytes[i &+ 1] == 0x20 { return nil }
            dashes &+= 1
            beforeDash = count
        } else if byte == 0x2E {  // .
            if i &+ 1 < end && bytes[i &+ 1] == 0x2E { return nil }
        } else if byte == 0x28 {  // (
            // One at most: the scanner puts back only the last `(0)` it dropped.
            if opened { return nil }
            opened = true
        } else if byte != 0x20 && byte != 0x29 && byte != 0x2F {  // space ) /
            return nil
        }
        i &+= 1
    }
    guard count > 0, count < Digits.maxAccumulated else { return nil }
    if dashes == 1, beforeDash >= E164.minDigits, count &- beforeDash >= E164.minDigits { return nil }
    return (Digits(value: value, literal: count, wildcards: 0), plus)
}

/// The 8 decimal digits of `value` (< 10^8, leading zeros included), one a byte, the first
/// digit in the lowest byte: split into halves, quarters and digits in the lanes of one word
/// (division by 100 and by 10 as multiplications exact for these ranges).
@inline(__always)
package func digitBytes(_ value: UInt64) -> UInt64 {
    let high = value / 10_000
    var lanes = high | (value &- high &* 10_000) &<< 32  // 4 digits a 32-bit lane
    var quotient = (lanes &* 5243) &>> 19 & 0x0000_007F_0000_007F  // x / 100 for x < 43,699
    lanes = quotient | (lanes &- quotient &* 100) &<< 16  // 2 digits a 16-bit lane
    quotient = (lanes &* 103) &>> 10 & 0x000F_000F_000F_000F  // x / 10 for x < 179
    return quotient | (lanes &- quotient &* 10) &<< 8
}

/// The value of `bytes[start..<end]` when it is 8 to 16 ASCII digits, else nil.
/// Two unaligned 8-byte loads inside the range replace the per-byte loop (SWAR).
@inline(__always)
func plainDigits(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> UInt64? {
    let count = end - start
    guard count >= 8, count <= 16, let base = bytes.baseAddress else { return nil }
    let head = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: start, as: UInt64.self))
    guard areEightDigits(head) else { return nil }
    let tailCount = count - 8
    if tailCount == 0 { return eightDigitsValue(head) }
    // The last 8 bytes overlap the head; the overlapping (low) bytes become '0'.
    var tail = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: end - 8, as: UInt64.self))
    let overlap: UInt64 = (1 << (8 * UInt64(8 - tailCount))) &- 1
    tail = (tail & ~overlap) | (0x3030_3030_3030_3030 & overlap)
    guard areEightDigits(tail) else { return nil }
    return eightDigitsValue(head) &* powerOfTen(tailCount) &+ eightDigitsValue(tail)
}

/// Whether all 8 bytes of a little-endian word are '0'...'9' (the check simdjson uses).
@inline(__always)
private func areEightDigits(_ word: UInt64) -> Bool {
    let high = word & 0xF0F0_F0F0_F0F0_F0F0
    let shifted = ((word &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0) >> 4
    return high | shifted == 0x3333_3333_3333_3333
}

/// The value of 8 ASCII digits, first digit in the lowest byte (Lemire's method).
@inline(__always)
private func eightDigitsValue(_ word: UInt64) -> UInt64 {
    var v = word &- 0x3030_3030_3030_3030
    v = v &* 10 &+ (v >> 8)
    let mask: UInt64 = 0x0000_00FF_0000_00FF
    let mul1: UInt64 = 100 + (1_000_000 << 32)
    let mul2: UInt64 = 1 + (10_000 << 32)
    return (((v & mask) &* mul1) &+ (((v >> 16) & mask) &* mul2)) >> 32
}

/// Whether `bytes[start..<end]`, a field without `+`, is written the way North Americans write
/// a national number without its country code: `(469) 257-6503` (a `(` before any digit), or
/// 10 digits in groups of 3, 3 and 4 (`469-257-6503`, `469 257 6503`, `469.257.6503`). A second
/// pass, made only for fields with punctuation read without `--country`: the scan every field
/// takes is not slowed down for it.
func looksNational(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Bool {
    var groups = 0, shape = 0, length = 0  // shape: the group lengths, a decimal digit each
    for i in start..<end {
        let byte = bytes[i]
        if byte &- 0x30 < 10 {
            length += 1
            continue
        }
        if byte == 0x28, groups == 0, length == 0 { return true }
        if length > 0 {
            groups += 1
            if groups > 3 || length > 9 { return false }
            shape = shape * 10 + length
            length = 0
        }
    }
    if length > 0 { groups += 1; shape = shape * 10 + length }
    return groups == 3 && shape == 334
}
