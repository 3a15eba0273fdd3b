import CallDirReader

/// Builds the static symbol table for a compile's labels from a sample of them, the way FSST
/// does (Boncz, Neumann, Leis, "FSST: Fast Random Access String Compression", VLDB 2020):
/// start empty; in each of five rounds, code the sample with the current table, count how
/// often each symbol and each pair of adjacent symbols occur, and keep the 255 candidates
/// (symbols, and pairs joined into one symbol of at most 8 bytes) with the largest
/// gain = occurrences x length. Deterministic: the same sample gives the same table.
package enum SymbolTableBuilder {
    package static let rounds = 5

    package static func build(sample: PackedLabels) -> LabelSymbols {
        var table = LabelSymbols(words: [], lengths: [])
        guard !sample.bytes.isEmpty else { return table }
        for _ in 0..<rounds { table = round(table, sample: sample) }
        return table
    }

    /// A unit is a code (0..<255) or 256 + a literal byte.
    private static func round(_ table: LabelSymbols, sample: PackedLabels) -> LabelSymbols {
        let coder = LabelCoder(table)
        var single = [Int](repeating: 0, count: 512)
        var pairs = [Int](repeating: 0, count: 512 * 512)
        sample.forEach { label in
            var previous = -1
            coder.forEachUnit(label) { code, literal in
                let unit = code.map { Int($0) } ?? 256 + Int(literal)
                single[unit] += 1
                if previous >= 0 { pairs[previous * 512 + unit] += 1 }
                previous = unit
            }
        }
        func symbol(_ unit: Int) -> (word: UInt64, length: Int) {
            unit >= 256 ? (UInt64(unit - 256), 1) : (table.words[unit], Int(table.lengths[unit]))
        }
        var gains: [Candidate: Int] = [:]
        for unit in 0..<512 where single[unit] > 0 {
            let s = symbol(unit)
            gains[Candidate(word: s.word, length: s.length), default: 0] += single[unit] * s.length
        }
        for a in 0..<512 where single[a] > 0 {
            let first = symbol(a)
            guard first.length < LabelSymbols.maxSymbolLength else { continue }
            for b in 0..<512 {
                let count = pairs[a * 512 + b]
                guard count > 0 else { continue }
                let second = symbol(b)
                let length = min(first.length + second.length, LabelSymbols.maxSymbolLength)
                let joined = first.word | second.word << UInt64(8 * first.length)
                let mask = length == 8 ? UInt64.max : (UInt64(1) << UInt64(8 * length)) - 1
                gains[Candidate(word: joined & mask, length: length), default: 0] += count * length
            }
        }
        let best = gains.sorted { ($0.value, $0.key.length, $1.key.word) > ($1.value, $1.key.length, $0.key.word) }
            .prefix(LabelSymbols.maxSymbols)
        return LabelSymbols(words: best.map(\.key.word), lengths: best.map { UInt8($0.key.length) })
    }

    private struct Candidate: Hashable {
        package var word: UInt64
        package var length: Int
    }
}
