/// One block of at most `IndexFormat.blockSize` strictly ascending numbers, Elias-Fano coded.
///
/// The first value (`base`) lives in the directory, not in the block. The other m = n-1 values
/// are stored as rel = value - base, split into L low bits (packed, fixed width) and the high
/// part rel >> L (unary: element j sets bit (rel_j >> L) + j). L = floor(log2(maxRel / m)),
/// capped at 56, which costs about 2 + log2(gap) bits per entry. Identification blocks append
/// n label ids of `labelBits` bits each, the width needed by the block's largest id (0 when
/// every id is 0, and always 0 for blocking entries), so a streaming writer never needs the
/// final label count. Layout: [L: u8][labelBits: u8][low bits][high bits][label bits].
package enum EliasFanoBlock {
    package static let maxLowBits = 56
    package static let headerBytes = 2

    /// Byte sizes of the parts that do not depend on the values' spread.
    package static func lowByteCount(count n: Int, lowBits: Int) -> Int { ((n - 1) * lowBits + 7) / 8 }
    package static func labelByteCount(count n: Int, labelBits: Int) -> Int { (n * labelBits + 7) / 8 }
}
