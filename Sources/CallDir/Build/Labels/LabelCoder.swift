import CallDirReader

/// Codes labels with a `LabelSymbols` table: at each position the longest symbol that
/// matches, else an escape and the literal byte.
struct LabelCoder {
    let symbols: LabelSymbols
    /// Per first byte, the symbols starting with it, longest first.
    private let byFirstByte: [[(word: UInt64, length: Int, code: UInt8)]]

    init(_ symbols: LabelSymbols) {
        self.symbols = symbols
        var lists = [[(word: UInt64, length: Int, code: UInt8)]](repeating: [], count: 256)
        for code in 0..<symbols.count {
            let word = symbols.words[code]
            lists[Int(word & 0xFF)].append((word, Int(symbols.lengths[code]), UInt8(code)))
        }
        byFirstByte = lists.map { $0.sorted { ($0.length, $1.code) > ($1.length, $0.code) } }
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
            var matched = false
            for candidate in byFirstByte[Int(label[i])] where candidate.length <= n - i {
                let mask = candidate.length == 8 ? UInt64.max : (UInt64(1) << UInt64(8 * candidate.length)) - 1
                if word & mask == candidate.word {
                    body(candidate.code, 0)
                    i += candidate.length
                    matched = true
                    break
                }
            }
            if !matched {
                body(nil, label[i])
                i += 1
            }
        }
    }

    /// Up to 8 bytes from `at`, little-endian; missing bytes past the end are zero.
    @inline(__always)
    static func word(_ bytes: UnsafeRawBufferPointer, at: Int) -> UInt64 {
        if bytes.count - at >= 8 { return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        var word: UInt64 = 0
        for j in 0..<(bytes.count - at) { word |= UInt64(bytes[at + j]) << UInt64(8 * j) }
        return word
    }
}
