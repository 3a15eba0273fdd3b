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

    package var count: Int { lengths.count }

    package init(words: [UInt64], lengths: [UInt8]) {
        self.words = words
        self.lengths = lengths
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

    /// Decodes `codes` into `out` (cleared first). Nil when a code is not in the table, an
    /// escape has no byte after it, or the text would exceed `IndexFormat.maxLabelBytes`.
    package func decode(_ codes: UnsafeRawBufferPointer, into out: inout [UInt8]) -> Bool {
        out.removeAll(keepingCapacity: true)
        var i = 0
        let count = lengths.count
        while i < codes.count {
            let code = codes[i]
            if code == Self.escape {
                guard i + 1 < codes.count else { return false }
                out.append(codes[i + 1])
                i += 2
            } else {
                guard Int(code) < count else { return false }
                let word = words[Int(code)]
                for j in 0..<Int(lengths[Int(code)]) { out.append(UInt8(truncatingIfNeeded: word >> UInt64(8 * j))) }
                i += 1
            }
            if out.count > IndexFormat.maxLabelBytes { return false }
        }
        return true
    }
}
