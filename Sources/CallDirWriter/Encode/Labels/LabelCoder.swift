import CallDirReader

/// Codes labels with a `LabelSymbols` table: at each position the longest symbol that
/// matches, else an escape and the literal byte.
///
/// Matching, as FSST does it, by table lookups instead of a search: symbols of two bytes or
/// more are grouped by their first two bytes (longest first, usually one or two per pair),
/// single-byte symbols sit in a 256-entry table. Labels are copied into a zero-padded scratch
/// buffer first, so every position reads one 8-byte word.
package final class LabelCoder {
    package let symbols: LabelSymbols
    /// Symbols of length >= 2 sorted by (first two bytes, length descending); those starting
    /// with pair p are `pairStart[p] ..< pairStart[p + 1]`.
    private let words: UnsafeMutableBufferPointer<UInt64>
    private let masks: UnsafeMutableBufferPointer<UInt64>
    private let lengths: UnsafeMutableBufferPointer<Int>
    private let codes: UnsafeMutableBufferPointer<UInt8>
    /// At most 255 symbols, so a byte each: 64 KiB, where 32-bit starts (256 KiB) missed the
    /// L2 cache on a quarter of the coding's loads.
    private let pairStart: UnsafeMutableBufferPointer<UInt8>
    /// Code of the single-byte symbol for each byte, or -1.
    private let single: UnsafeMutableBufferPointer<Int16>
    /// The label being coded, then 8 zero bytes.
    private let scratch: UnsafeMutableRawBufferPointer
    /// Codes of the label being coded (at most two per byte).
    private let output: UnsafeMutableBufferPointer<UInt8>

    package init(_ symbols: LabelSymbols) {
        self.symbols = symbols
        let long = (0..<symbols.count).filter { symbols.lengths[$0] >= 2 }.sorted {
            let (a, b) = (symbols.words[$0] & 0xFFFF, symbols.words[$1] & 0xFFFF)
            return a != b ? a < b : (symbols.lengths[$0], $1) > (symbols.lengths[$1], $0)
        }
        let n = max(long.count, 1)
        words = .allocate(capacity: n)
        masks = .allocate(capacity: n)
        lengths = .allocate(capacity: n)
        codes = .allocate(capacity: n)
        pairStart = .allocate(capacity: 65_537)
        pairStart.initialize(repeating: 0)
        for (i, code) in long.enumerated() {
            let length = Int(symbols.lengths[code])
            words[i] = symbols.words[code]
            masks[i] = length == 8 ? UInt64.max : (UInt64(1) << UInt64(8 * length)) - 1
            lengths[i] = length
            codes[i] = UInt8(code)
            pairStart[Int(symbols.words[code] & 0xFFFF) + 1] += 1
        }
        for p in 0..<65_536 { pairStart[p + 1] += pairStart[p] }
        single = .allocate(capacity: 256)
        single.initialize(repeating: -1)
        for code in 0..<symbols.count where symbols.lengths[code] == 1 { single[Int(symbols.words[code] & 0xFF)] = Int16(code) }
        scratch = .allocate(byteCount: IndexFormat.maxLabelBytes + 16, alignment: 8)
        output = .allocate(capacity: 2 * IndexFormat.maxLabelBytes + 2)
    }

    deinit {
        words.deallocate()
        masks.deallocate()
        lengths.deallocate()
        codes.deallocate()
        pairStart.deallocate()
        single.deallocate()
        scratch.deallocate()
        output.deallocate()
    }

    /// Appends the codes of `label` (at most `IndexFormat.maxLabelBytes` bytes) to `out`.
    package func encode(_ label: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        var n = 0
        forEachUnit(label) { code, literal in
            if let code {
                output[n] = code
                n &+= 1
            } else {
                output[n] = LabelSymbols.escape
                output[n &+ 1] = literal
                n &+= 2
            }
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: output[..<n]))
    }

    /// Calls `body` with each unit of the coding: a symbol's code, or nil and a literal byte.
    @inline(__always)
    package func forEachUnit(_ label: UnsafeRawBufferPointer, _ body: (UInt8?, UInt8) -> Void) {
        let n = min(label.count, IndexFormat.maxLabelBytes)
        guard n > 0, let source = label.baseAddress, let base = scratch.baseAddress else { return }
        base.copyMemory(from: source, byteCount: n)
        base.storeBytes(of: UInt64(0), toByteOffset: n, as: UInt64.self)  // the zero padding
        var i = 0
        while i < n {
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            let pair = Int(word & 0xFFFF)
            var s = Int(pairStart[pair])
            let end = Int(pairStart[pair &+ 1])
            while s < end, lengths[s] > n &- i || word & masks[s] != words[s] { s &+= 1 }
            if s < end {
                body(codes[s], 0)
                i &+= lengths[s]
            } else {
                let byte = UInt8(truncatingIfNeeded: word)
                let code = single[Int(byte)]
                if code >= 0 { body(UInt8(code), 0) } else { body(nil, byte) }
                i &+= 1
            }
        }
    }
}
