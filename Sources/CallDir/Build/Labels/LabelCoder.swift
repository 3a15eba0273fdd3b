import CallDirReader

/// Codes labels with a `LabelSymbols` table: at each position the longest symbol that
/// matches, else an escape and the literal byte.
///
/// The symbols are kept grouped by first byte, longest first, in flat buffers (no nested
/// arrays: per-position retains of an inner array cost a quarter of a 1M-label compile).
final class LabelCoder {
    let symbols: LabelSymbols
    /// Symbols sorted by (first byte, length descending); `start[b] ..< start[b + 1]` are
    /// those starting with byte b.
    private let words: UnsafeMutableBufferPointer<UInt64>
    private let lengths: UnsafeMutableBufferPointer<Int>
    private let codes: UnsafeMutableBufferPointer<UInt8>
    private let start: UnsafeMutableBufferPointer<Int>

    init(_ symbols: LabelSymbols) {
        self.symbols = symbols
        let order = (0..<symbols.count).sorted {
            let (a, b) = (symbols.words[$0] & 0xFF, symbols.words[$1] & 0xFF)
            return a != b ? a < b : (symbols.lengths[$0], $1) > (symbols.lengths[$1], $0)
        }
        words = .allocate(capacity: max(order.count, 1))
        lengths = .allocate(capacity: max(order.count, 1))
        codes = .allocate(capacity: max(order.count, 1))
        start = .allocate(capacity: 257)
        start.initialize(repeating: 0)
        for (i, code) in order.enumerated() {
            words[i] = symbols.words[code]
            lengths[i] = Int(symbols.lengths[code])
            codes[i] = UInt8(code)
            start[Int(symbols.words[code] & 0xFF) + 1] += 1
        }
        for b in 0..<256 { start[b + 1] += start[b] }
    }

    deinit {
        words.deallocate()
        lengths.deallocate()
        codes.deallocate()
        start.deallocate()
    }

    /// Appends the codes of `label` to `out`.
    func encode(_ label: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        forEachUnit(label) { code, literal in
            if let code { out.append(code) } else { out.append(LabelSymbols.escape); out.append(literal) }
        }
    }

    /// Calls `body` with each unit of the coding: a symbol's code, or nil and a literal byte.
    @inline(__always)
    func forEachUnit(_ label: UnsafeRawBufferPointer, _ body: (UInt8?, UInt8) -> Void) {
        var i = 0
        let n = label.count
        while i < n {
            let word = Self.word(label, at: i)
            let first = Int(word & 0xFF)
            var s = start[first]
            let end = start[first &+ 1]
            while s < end {
                let length = lengths[s]
                let mask = length == 8 ? UInt64.max : (UInt64(1) &<< UInt64(8 &* length)) &- 1
                if length <= n &- i, word & mask == words[s] { break }
                s &+= 1
            }
            if s < end {
                body(codes[s], 0)
                i &+= lengths[s]
            } else {
                body(nil, UInt8(truncatingIfNeeded: first))
                i &+= 1
            }
        }
    }

    /// Up to 8 bytes from `at`, little-endian; missing bytes past the end are zero.
    @inline(__always)
    static func word(_ bytes: UnsafeRawBufferPointer, at: Int) -> UInt64 {
        if bytes.count &- at >= 8 { return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        var word: UInt64 = 0
        for j in 0..<(bytes.count &- at) { word |= UInt64(bytes[at &+ j]) &<< UInt64(8 &* j) }
        return word
    }
}
