/// Checks a stored label from its codes alone, without decoding it: what `LabelSymbols.decode`
/// and `LabelRule.problem` would say of it, for the common label whose symbols and literals
/// are all printable ASCII. A block's first read checks all its labels (`LabelStoreReader.validate`),
/// so this runs once per label a batch lookup may answer: decoding each one there doubled the
/// labels' share of `lookup -` (docs/BENCHMARKS-LOG.md, 2026-11-28).
package struct LabelScan {
    /// A byte's or a symbol's kind: a symbol is `other` if a byte is, else `printable` if a byte is.
    package enum Class: UInt8 {
        case printable = 0  // 0x21...0x7E: the label is not blank
        case onlySpaces = 1  // 0x20, which `LabelRule` trims from the front
        case other = 2  // anything else: the label's text must be decoded and checked

        @inline(__always)
        package init(byte b: UInt8) { self = b == 0x20 ? .onlySpaces : (0x21...0x7E).contains(b) ? .printable : .other }

        /// The class of the symbol whose `length` (1...8) bytes are `word`'s low bytes, 8 bytes
        /// at a time as `LabelRule` checks text (no allocation: every index open builds 255).
        package init(symbol word: UInt64, length: Int) {
            let spaces: UInt64 = 0x2020_2020_2020_2020, high: UInt64 = 0x8080_8080_8080_8080
            let used: UInt64 = length >= 8 ? ~0 : (1 &<< UInt64(8 * length)) &- 1
            let w = (word & used) | (spaces & ~used)  // unused bytes: spaces, which change nothing
            let below = (w &- spaces) & high, del = ((w ^ 0x7F7F_7F7F_7F7F_7F7F) &- 0x0101_0101_0101_0101) & high
            if w & high != 0 || below != 0 || del != 0 { self = .other } else { self = w == spaces ? .onlySpaces : .printable }
        }
    }

    package enum Verdict {
        case fine
        case undecodable  // a code not in the table, an escape without its byte, text too long
        case blank  // only spaces: `LabelRule`'s `.emptyLabel`
        case needsText  // some byte is not printable ASCII: decode and ask `LabelRule`
    }

    let lengths: UnsafeBufferPointer<UInt8>
    let classes: UnsafeBufferPointer<UInt8>

    /// The verdict on the label coded as `codes`.
    @inline(__always)
    package func verdict(_ codes: UnsafeRawBufferPointer) -> Verdict {
        var length = 0, i = 0
        var printable = false, other = false
        let count = lengths.count
        while i < codes.count {
            let code = Int(codes[i])
            let kind: UInt8
            if code < count {
                length &+= Int(lengths[code])
                kind = classes[code]
                i &+= 1
            } else {
                guard code == Int(LabelSymbols.escape), i &+ 1 < codes.count else { return .undecodable }
                length &+= 1
                kind = Class(byte: codes[i &+ 1]).rawValue
                i &+= 2
            }
            printable = printable || kind == Class.printable.rawValue
            other = other || kind == Class.other.rawValue
        }
        guard length <= IndexFormat.maxLabelBytes else { return .undecodable }
        if other { return .needsText }
        return printable ? .fine : .blank
    }
}

extension LabelSymbols {
    /// Calls `body` with a scanner over this table (valid inside `body` only).
    @inline(__always)
    package func withScan<R>(_ body: (LabelScan) throws -> R) rethrows -> R {
        try lengths.withUnsafeBufferPointer { lengths in
            try classes.withUnsafeBufferPointer { classes in try body(LabelScan(lengths: lengths, classes: classes)) }
        }
    }
}
