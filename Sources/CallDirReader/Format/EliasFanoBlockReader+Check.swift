/// The formula checks of a decoded block (FORMAT.md, "What a reader refuses"): run by `verify`
/// on every block and by lookups on a block they first decode, so that a forged L, W, h or
/// label part with a resealed CRC is refused instead of answering other numbers or labels.
extension EliasFanoBlockReader {
    /// What is wrong with the block's encoding, given its decoded last value (`base` when it
    /// holds one value), or nil: L, W, the high part's length and bits, and the stream-label
    /// map are the ones the values and labels give, the bits past each packed part are zero,
    /// and shared ids lie below `sharedLabels`.
    package func layoutProblem(last: Int64, sharedLabels: Int = Int.max) -> String? {
        let m = count - 1
        let u = UInt64(last &- base)
        let expectedL = EliasFanoBlock.lowBits(maxRel: u, m: m)
        guard lowBits == expectedL else { return "L is \(lowBits), its values give \(expectedL)" }
        let highBytes = EliasFanoBlock.highByteCount(maxRel: u, lowBits: expectedL, m: m)
        guard highBitCount == 8 * highBytes else { return "high part of \(highBitCount / 8) bytes, its values give \(highBytes)" }
        guard Self.onesCount(bytes, from: highStart, bitCount: highBitCount) == m,
              Self.zeroPast(bytes, start: lowStart, bits: m * lowBits, end: highStart) else {
            return "stray bits in its low or high part"
        }
        let identified = lowStart == EliasFanoBlock.identifiedHeaderBytes  // the longer header
        return identified ? labelProblem(sharedLabels: sharedLabels) : nil
    }

    /// The label part of an identification block: the map marks exactly C entries, W is the
    /// width of the largest shared id, and no bit follows the packed parts.
    private func labelProblem(sharedLabels: Int) -> String? {
        let k = count, c = streamCount
        var idsStart = labelStart
        if c > 0, c < k {
            idsStart += (k + 7) / 8
            guard Self.onesCount(bytes, from: labelStart, bitCount: 8 * ((k + 7) / 8)) == c,
                  Self.zeroPast(bytes, start: labelStart, bits: k, end: idsStart) else {
                return "its stream-label map does not mark \(c) entries (its stream-label count)"
            }
        }
        // The k - C shared ids, read in place (not through `label(at:)`, which counts the map
        // for each entry: 256 of those were most of a lookup's first decode of a block).
        var maxShared: UInt32 = 0
        for j in 0..<(k - c) {
            maxShared = max(maxShared, UInt32(truncatingIfNeeded: field(start: idsStart, bit: j &* labelBits, width: labelBits)))
        }
        guard c == k || Int(maxShared) < sharedLabels else { return "refers to missing shared label \(maxShared)" }
        let expectedW = EliasFanoBlock.labelBits(maxShared: maxShared)
        guard labelBits == expectedW else { return "W is \(labelBits), its largest shared id needs \(expectedW)" }
        guard c == k || Self.zeroPast(bytes, start: idsStart, bits: (k - c) * labelBits, end: bytes.count) else {
            return "stray bits after its shared label ids"
        }
        return nil
    }

    /// Set bits in `bitCount` bits from byte `from` of `bytes`.
    private static func onesCount(_ bytes: UnsafeRawBufferPointer, from: Int, bitCount: Int) -> Int {
        var ones = 0, i = from
        let end = from + bitCount / 8
        while i + 8 <= end {  // 8 bytes at a time: the high part of a block is ~64 bytes
            ones &+= bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self).nonzeroBitCount
            i &+= 8
        }
        while i < end { ones &+= bytes[i].nonzeroBitCount; i &+= 1 }
        return ones
    }

    /// True when the bits of bytes `start..<end` past the first `bits` are all zero.
    private static func zeroPast(_ bytes: UnsafeRawBufferPointer, start: Int, bits: Int, end: Int) -> Bool {
        let full = start + bits / 8
        guard full < end else { return true }
        let partial = bits % 8 == 0 ? bytes[full] : bytes[full] >> UInt8(bits % 8)
        guard partial == 0 else { return false }
        for i in (full + 1)..<end where bytes[i] != 0 { return false }
        return true
    }
}
