/// One block of at most `IndexFormat.blockSize` strictly ascending numbers, Elias-Fano coded.
///
/// The first value (`base`) lives in the directory, not in the block. The other m = n-1 values
/// are stored as rel = value - base, split into L low bits (packed, fixed width) and the high
/// part rel >> L (unary: element j sets bit (rel_j >> L) + j). L = floor(log2(maxRel / m)),
/// capped at 56, which costs about 2 + log2(gap) bits per entry. Identification blocks append
/// n label ids of `labelBits` bits each, the width needed by the block's largest id (0 when
/// every id is 0, and always 0 for blocking entries), so a streaming writer never needs the
/// final label count. Layout: [L: u8][labelBits: u8][low bits][high bits][label bits].
enum EliasFanoBlock {
    static let maxLowBits = 56
    static let headerBytes = 2

    /// Byte sizes of the parts that do not depend on the values' spread.
    static func lowByteCount(count n: Int, lowBits: Int) -> Int { ((n - 1) * lowBits + 7) / 8 }
    static func labelByteCount(count n: Int, labelBits: Int) -> Int { (n * labelBits + 7) / 8 }

    /// Appends the encoding of `values` (ascending, count 1...blockSize) and their label ids.
    static func encode(_ values: UnsafeBufferPointer<Int64>, labels: UnsafeBufferPointer<UInt32>?,
                       into out: inout [UInt8]) {
        let n = values.count
        let base = values[0]
        let m = n - 1
        let maxRel = UInt64(values[n - 1] &- base)
        var lowBits = 0
        if m > 0, maxRel / UInt64(m) > 0 {
            lowBits = min(maxLowBits, 63 - (maxRel / UInt64(m)).leadingZeroBitCount)
        }
        let maxLabel = labels?.max() ?? 0
        let labelBits = maxLabel == 0 ? 0 : 32 - maxLabel.leadingZeroBitCount
        out.append(UInt8(lowBits))
        out.append(UInt8(labelBits))
        var writer = BitWriter()
        let lowMask: UInt64 = lowBits == 0 ? 0 : (UInt64.max >> (64 - lowBits))
        for i in stride(from: 1, to: n, by: 1) {
            writer.write(UInt64(values[i] &- base) & lowMask, bits: lowBits)
        }
        writer.flush(into: &out)
        for i in stride(from: 1, to: n, by: 1) {  // unary high parts
            let position = Int(UInt64(values[i] &- base) >> UInt64(lowBits)) + (i - 1)
            writer.setBit(at: position, into: &out)
        }
        writer.flush(into: &out)
        if let labels, labelBits > 0 {
            for id in labels { writer.write(UInt64(id), bits: labelBits) }
            writer.flush(into: &out)
        }
    }
}

/// Packs bits least-significant first. `setBit` writes a sparse bit vector in increasing
/// positions (the unary part), `write` appends fixed-width fields.
struct BitWriter {
    private var pending: UInt64 = 0
    private var pendingBits = 0
    private var sparseStart = -1  // byte index in `out` where the current sparse vector starts
    private var sparseBits = 0

    mutating func write(_ value: UInt64, bits: Int) {
        guard bits > 0 else { return }
        pending |= value << UInt64(pendingBits)
        let room = 64 - pendingBits
        if bits >= room {
            bytesOut.append(pending)
            pending = room == 64 ? 0 : value >> UInt64(room)
            pendingBits = bits - room
        } else {
            pendingBits += bits
        }
    }

    private var bytesOut: [UInt64] = []

    mutating func setBit(at position: Int, into out: inout [UInt8]) {
        if sparseStart < 0 { sparseStart = out.count }
        let byteCount = position / 8 + 1
        let have = out.count - sparseStart
        if byteCount > have { out.append(contentsOf: repeatElement(0, count: byteCount - have)) }
        out[sparseStart + position / 8] |= UInt8(1) << UInt8(position % 8)
        sparseBits = max(sparseBits, position + 1)
    }

    /// Ends the current field run or sparse vector at a byte boundary.
    mutating func flush(into out: inout [UInt8]) {
        for word in bytesOut { out.appendLE(word) }
        bytesOut.removeAll(keepingCapacity: true)
        var rest = pendingBits
        while rest > 0 {
            out.append(UInt8(truncatingIfNeeded: pending))
            pending >>= 8
            rest -= 8
        }
        pending = 0
        pendingBits = 0
        sparseStart = -1
        sparseBits = 0
    }
}
