/// Whole-block decoding for sequential passes (iteration, verification, the device feed):
/// one pass over the high words, each set bit one value, written to a buffer. About 4x the
/// speed of `forEach` with a closure per value, which was 70% of a 10M-entry device feed.
extension EliasFanoBlockReader {
    /// Writes the block's values, ascending as stored, to `out` (room for `count` values);
    /// returns how many it decoded: fewer than `count` means the block is damaged (too few set
    /// bits, or a value past `Int64.max`). Order is the caller's to check.
    func decode(into out: UnsafeMutablePointer<Int64>) -> Int {
        var produced = 0
        return decode { out[produced] = $0; produced &+= 1; return true }
    }

    /// The pass of `decode(into:)`, handing each value to `emit` in order (inlined, so no call
    /// per value) and stopping early when it returns false; returns how many it produced.
    @inline(__always)
    func decode(_ emit: (Int64) -> Bool) -> Int {
        guard emit(base) else { return 1 }
        guard count > 1 else { return 1 }
        guard let start = bytes.baseAddress else { return 1 }
        let maxRel = UInt64(Int64.max &- base)
        let maxHigh = maxRel &>> UInt64(lowBits)
        let lowMask = lowBits == 0 ? 0 : UInt64.max &>> UInt64(64 &- lowBits)
        let lastWord = (highBitCount &- 1) &>> 6
        var produced = 1
        var w = 0
        while w <= lastWord {
            var word = UInt64(littleEndian: start.loadUnaligned(fromByteOffset: highStart &+ w &* 8, as: UInt64.self))
            if w == lastWord, highBitCount & 63 != 0 { word &= UInt64.max &>> UInt64(64 &- highBitCount & 63) }
            while word != 0 {
                let j = produced &- 1  // entry j is value j + 1
                let high = UInt64(w &* 64 &+ word.trailingZeroBitCount &- j)
                let lowBit = j &* lowBits
                let low = (UInt64(littleEndian: start.loadUnaligned(fromByteOffset: lowStart &+ lowBit &>> 3, as: UInt64.self))
                    &>> UInt64(lowBit & 7)) & lowMask
                guard high <= maxHigh else { return produced }
                let rel = high &<< UInt64(lowBits) | low
                guard rel <= maxRel else { return produced }
                produced &+= 1
                guard emit(base &+ Int64(rel)) else { return produced }
                if produced == count { return produced }
                word &= word &- 1
            }
            w &+= 1
        }
        return produced
    }
}
