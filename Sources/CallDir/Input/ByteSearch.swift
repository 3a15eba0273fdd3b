/// Word-at-a-time byte search (SWAR): eight bytes per step, inlined.
///
/// Phone lists have lines of about a dozen bytes. Calling `memchr` once per line (and again for
/// a TAB) cost more than the search itself: the text path measured 25 ns/line with `memchr`
/// against a budget of 20, and 13 ns/line with these helpers (release build, 10M lines of 12
/// bytes, file in the page cache; about 2 ns of it is `read`).
enum ByteSearch {
    private static let lows: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080
    private static let sevens: UInt64 = 0x7F7F_7F7F_7F7F_7F7F

    /// Eight bytes at `pointer` (any alignment), first byte in the low bits.
    @inline(__always)
    static func load(_ pointer: UnsafeRawPointer) -> UInt64 {
        UInt64(littleEndian: pointer.loadUnaligned(as: UInt64.self))
    }

    /// The high bit of each byte of `word` that equals `byte`, and no other bit. (Exact: unlike
    /// the shorter "has zero byte" trick, a match never sets bits for the bytes after it.)
    @inline(__always)
    static func matches(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        let x = word ^ (lows &* UInt64(byte))
        return ~(((x & sevens) &+ sevens) | x) & highs
    }

    /// Offset of the byte whose high bit is the lowest set bit of a `matches` mask.
    @inline(__always)
    static func firstOffset(_ mask: UInt64) -> Int {
        mask.trailingZeroBitCount &>> 3
    }

    /// Whether any of `count` (>= 8) bytes is below '0', as TAB, comma, quote, space and
    /// punctuation are: lines of digits (most lines) skip the exact search with two words.
    /// The last word overlaps the one before; seeing a byte twice does not matter here.
    @inline(__always)
    static func hasByteBelowDigits(_ base: UnsafeRawPointer, count: Int) -> Bool {
        var below = bytesBelow(load(base), 0x30) | bytesBelow(load(base + (count &- 8)), 0x30)
        var offset = 8
        while offset &+ 8 < count {  // lines over 16 bytes
            below |= bytesBelow(load(base + offset), 0x30)
            offset &+= 8
        }
        return below != 0
    }

    /// Nonzero when some byte of `word` is below `limit` (<= 0x80). Exact as a yes/no answer;
    /// which bits are set is not (a borrow can mark a later byte too).
    @inline(__always)
    static func bytesBelow(_ word: UInt64, _ limit: UInt8) -> UInt64 {
        (word &- lows &* UInt64(limit)) & ~word & highs
    }

    /// For a text-list line: the offset of the first TAB, else whether the line has a comma or
    /// a double quote (and so is CSV).
    @inline(__always)
    static func separators(in line: UnsafeRawBufferPointer) -> (tab: Int?, csv: Bool) {
        let count = line.count
        guard let base = line.baseAddress else { return (nil, false) }
        if count >= 8, !hasByteBelowDigits(base, count: count) { return (nil, false) }
        var offset = 0
        var csv: UInt64 = 0
        while offset + 8 <= count {
            let word = load(base + offset)
            let tabs = matches(word, 0x09)
            if tabs != 0 { return (offset + firstOffset(tabs), false) }
            csv |= matches(word, 0x2C) | matches(word, 0x22)
            offset += 8
        }
        while offset < count {
            let byte = line[offset]
            if byte == 0x09 { return (offset, false) }
            if byte == 0x2C || byte == 0x22 { csv = 1 }
            offset += 1
        }
        return (nil, csv != 0)
    }
}
