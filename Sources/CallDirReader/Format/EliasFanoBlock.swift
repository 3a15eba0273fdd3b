/// One block of at most `IndexFormat.blockSize` strictly ascending numbers, Elias-Fano coded.
///
/// The first value (`base`) lives in the directory, not in the block. The other m = n-1 values
/// are stored as rel = value - base, split into L low bits (packed, fixed width) and the high
/// part rel >> L (unary: element j sets bit (rel_j >> L) + j). L = floor(log2(maxRel / m)),
/// capped at 56, which costs about 2 + log2(gap) bits per entry.
///
/// Blocking blocks: [L: u8][0: u8][low bits][high bits].
/// Identification blocks: [L: u8][W: u8][C: u16][S: u32][low bits][high bits][label part]:
/// C entries use stream labels, which are numbered S, S+1, ... in entry order; the others use
/// shared labels, whose ids take W bits each (the width of the block's largest shared id).
/// The label part is empty when C = n, the n shared ids when C = 0, and otherwise an n-bit map
/// (bit j set: entry j uses a stream label) followed by the n - C shared ids.
package enum EliasFanoBlock {
    package static let maxLowBits = 56
    package static let headerBytes = 2
    package static let identifiedHeaderBytes = 8

    package static func headerBytes(identified: Bool) -> Int { identified ? identifiedHeaderBytes : headerBytes }

    /// Byte sizes of the parts that do not depend on the values' spread.
    package static func lowByteCount(count n: Int, lowBits: Int) -> Int { ((n - 1) * lowBits + 7) / 8 }
    package static func labelByteCount(count n: Int, labelBits: Int) -> Int { (n * labelBits + 7) / 8 }

    /// L for a block whose m = n - 1 later values span `maxRel` above its first.
    @inline(__always)
    package static func lowBits(maxRel: UInt64, m: Int) -> Int {
        guard m > 0, maxRel / UInt64(m) > 0 else { return 0 }
        return min(maxLowBits, 63 - (maxRel / UInt64(m)).leadingZeroBitCount)
    }

    /// h: bytes of the unary high parts (0 when the block holds one value).
    @inline(__always)
    package static func highByteCount(maxRel: UInt64, lowBits: Int, m: Int) -> Int {
        m == 0 ? 0 : (Int(maxRel >> UInt64(lowBits)) + m + 7) / 8
    }

    /// W: the bits of the block's largest shared label id (0 when it is 0).
    @inline(__always)
    package static func labelBits(maxShared: UInt32) -> Int { maxShared == 0 ? 0 : 32 - maxShared.leadingZeroBitCount }

    /// Bytes of an identification block's label part.
    package static func labelPartBytes(count n: Int, streamCount c: Int, labelBits: Int) -> Int {
        if c == n { return 0 }
        if c == 0 { return labelByteCount(count: n, labelBits: labelBits) }
        return (n + 7) / 8 + labelByteCount(count: n - c, labelBits: labelBits)
    }
}
