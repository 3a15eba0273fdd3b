/// The static symbol table every stored label is coded with (FSST-style, see FORMAT.md):
/// up to 255 symbols of 1-8 bytes; a code below the symbol count stands for its symbol, code
/// 255 is followed by one literal byte. Codes in between are damage. Decoding is a table
/// lookup per code, with random access to any single label.
package struct LabelSymbols: Sendable {
    package static let escape: UInt8 = 255
    package static let maxSymbols = 255
    package static let maxSymbolLength = 8

    /// Symbol bytes, little-endian in a word (unused high bytes zero), and lengths.
    package let words: [UInt64]
    package let lengths: [UInt8]
    /// What the decode reads, one entry per code (256): the symbol's word (zero for the escape
    /// and unknown codes) and its `LabelKinds`, so a code needs no bounds test.
    let codeWords: [UInt64]
    let codeKinds: [UInt8]

    package var count: Int { lengths.count }

    package init(words: [UInt64], lengths: [UInt8]) {
        self.words = words
        self.lengths = lengths
        var codeWords = [UInt64](repeating: 0, count: 256), codeKinds = [UInt8](repeating: LabelKinds.unknown, count: 256)
        for i in words.indices {
            codeWords[i] = words[i]
            codeKinds[i] = LabelKinds.of(symbol: words[i], length: Int(lengths[i]))
        }
        codeKinds[Int(Self.escape)] = LabelKinds.escape
        self.codeWords = codeWords
        self.codeKinds = codeKinds
    }

    /// Parses the label-symbols section: u32 count, count u8 lengths (1...8), the symbols'
    /// bytes back to back. Any inconsistency is damage.
    package init(section: UnsafeRawBufferPointer, path: String) throws {
        func damage(_ message: String) -> CallDirError {
            CallDirError(.corruptIndex, "\(SectionKind.labelSymbols.name): \(message)", path: path)
        }
        guard let rawCount = section.readLE(UInt32.self, at: 0), rawCount <= UInt32(Self.maxSymbols) else {
            throw damage("missing or impossible symbol count")
        }
        let count = Int(rawCount)
        guard section.count >= 4 + count else { throw damage("lengths do not fit the section") }
        var words: [UInt64] = []
        var lengths: [UInt8] = []
        words.reserveCapacity(count)
        lengths.reserveCapacity(count)
        var at = 4 + count
        for i in 0..<count {
            let length = Int(section[4 + i])
            guard (1...Self.maxSymbolLength).contains(length), at <= section.count - length else {
                throw damage("symbol \(i) has length \(length) or lies outside the section")
            }
            var word: UInt64 = 0
            for j in 0..<length { word |= UInt64(section[at + j]) << UInt64(8 * j) }
            words.append(word)
            lengths.append(UInt8(length))
            at += length
        }
        guard at == section.count else { throw damage("\(section.count - at) bytes after the last symbol") }
        self.init(words: words, lengths: lengths)
    }

    package func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.appendLE(UInt32(count))
        out.append(contentsOf: lengths)
        for (word, length) in zip(words, lengths) {
            for j in 0..<Int(length) { out.append(UInt8(truncatingIfNeeded: word >> UInt64(8 * j))) }
        }
        return out
    }

    /// Decodes `codes` into `out` (cleared first). False when a code is not in the table, an
    /// escape has no byte after it, or the text would exceed `IndexFormat.maxLabelBytes`.
    package func decode(_ codes: UnsafeRawBufferPointer, into out: inout [UInt8]) -> Bool {
        out.removeAll(keepingCapacity: true)
        return withDecoded(codes) { out.append(contentsOf: $0) } != nil
    }

    /// Calls `body` with the text of `codes`, decoded into a stack buffer; nil when the codes
    /// are damaged (as `decode`). Each symbol is stored as a whole 8-byte word and the output
    /// advances by its length, so the buffer has 8 bytes of slack past the longest text.
    @inline(__always)
    package func withDecoded<R>(_ codes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R? {
        try withDecoded(codes) { text, _ in try body(text) }
    }

    /// `withDecoded`, also handing `body` the `LabelKinds` of every byte written, ORed, from
    /// which `LabelKinds.problem` judges the label without reading it again.
    @inline(__always)
    package func withDecoded<R>(_ codes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer, _ kinds: UInt8) throws -> R) rethrows -> R? {
        let limit = IndexFormat.maxLabelBytes
        return try withUnsafeTemporaryAllocation(byteCount: limit + 16, alignment: 8) { buffer -> R? in
            guard let base = buffer.baseAddress else { return nil }
            var kinds: UInt8 = 0
            let length: Int? = codeWords.withUnsafeBufferPointer { words in
                codeKinds.withUnsafeBufferPointer { table in
                    var at = 0, i = 0
                    while i < codes.count {
                        guard at <= limit else { return nil }
                        let code = Int(codes[i])
                        let kind = table[code]
                        if kind & LabelKinds.notSymbol == 0 {
                            base.storeBytes(of: words[code].littleEndian, toByteOffset: at, as: UInt64.self)
                            kinds |= kind
                            at &+= Int(kind & LabelKinds.lengthMask)
                            i &+= 1
                        } else {
                            guard kind == LabelKinds.escape, i &+ 1 < codes.count else { return nil }
                            let byte = codes[i &+ 1]
                            base.storeBytes(of: byte, toByteOffset: at, as: UInt8.self)
                            kinds |= LabelKinds.of(byte: byte)
                            at &+= 1
                            i &+= 2
                        }
                    }
                    return at <= limit ? at : nil
                }
            }
            guard let length else { return nil }
            return try body(UnsafeRawBufferPointer(start: base, count: length), kinds)
        }
    }
}
