/// One byte per label code (all 256), read by the decode beside the code's symbol word: the
/// symbol's length and the kinds of bytes it holds, or that the code is the escape or in no
/// table. The decode ORs the kinds of what it writes, so a label is judged as `LabelRule`
/// judges it (`problem`) without reading its text again, for the common label of printable
/// ASCII. This replaced a scan of every label of a block on its first read, through two
/// count-sized tables after a bounds test (about 300 instructions a label, 1.13x of a 1M
/// `lookup -`; docs/BENCHMARKS-LOG.md, 2026-12-07).
package enum LabelKinds {
    package static let lengthMask: UInt8 = 0x0F  // a symbol's length, 1...8
    package static let printable: UInt8 = 0x10  // some byte 0x21...0x7E: the label is not blank
    package static let other: UInt8 = 0x20  // some byte neither printable ASCII nor a space: `LabelRule` reads the text
    package static let escape: UInt8 = 0x40  // code 255: one literal byte follows
    package static let unknown: UInt8 = 0x80  // a code past the symbol count: damage
    /// A code that is not a symbol.
    package static let notSymbol: UInt8 = escape | unknown

    /// The kinds of a literal byte (a space, which `LabelRule` trims, adds none).
    @inline(__always)
    package static func of(byte b: UInt8) -> UInt8 { b == 0x20 ? 0 : (0x21...0x7E).contains(b) ? printable : other }

    /// The entry of a symbol whose `length` (1...8) bytes are `word`'s low bytes, 8 bytes at a
    /// time as `LabelRule` checks text (no allocation: every index open builds up to 255).
    package static func of(symbol word: UInt64, length: Int) -> UInt8 {
        let spaces: UInt64 = 0x2020_2020_2020_2020, high: UInt64 = 0x8080_8080_8080_8080
        let used: UInt64 = length >= 8 ? ~0 : (1 &<< UInt64(8 * length)) &- 1
        let w = (word & used) | (spaces & ~used)  // unused bytes: spaces, which change nothing
        let below = (w &- spaces) & high, del = ((w ^ 0x7F7F_7F7F_7F7F_7F7F) &- 0x0101_0101_0101_0101) & high
        let kind = w & high != 0 || below != 0 || del != 0 ? other : w == spaces ? 0 : printable
        return kind | UInt8(length)
    }

    /// `LabelRule.problem` of a decoded label whose bytes have `kinds`: read from the kinds
    /// alone unless some byte is not printable ASCII (the decode bounds the length).
    @inline(__always)
    package static func problem(_ text: UnsafeRawBufferPointer, kinds: UInt8) -> RejectReason? {
        if kinds & other != 0 { return LabelRule.problem(text) }
        return kinds & printable != 0 ? nil : .emptyLabel
    }
}
