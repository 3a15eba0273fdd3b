/// Reads one Elias-Fano block in place (see `EliasFanoBlock` for the layout). Every load is
/// bounds-checked against the block's bytes: damaged blocks give wrong or no answers, never a
/// crash; checksums (verified before a lookup trusts a block) turn those into damage reports.
struct EliasFanoBlockReader {
    let bytes: UnsafeRawBufferPointer
    let count: Int
    let base: Int64
    let labelBits: Int
    let lowBits: Int
    let lowStart: Int
    let highStart: Int
    let highBitCount: Int
    let labelStart: Int

    /// Nil when the block's sizes do not add up (damage).
    init?(bytes: UnsafeRawBufferPointer, count: Int, base: Int64) {
        guard count >= 1, bytes.count >= EliasFanoBlock.headerBytes else { return nil }
        let lowBits = Int(bytes[0])
        let labelBits = Int(bytes[1])
        guard lowBits <= EliasFanoBlock.maxLowBits, labelBits <= 32 else { return nil }
        let lowBytes = EliasFanoBlock.lowByteCount(count: count, lowBits: lowBits)
        let labelBytes = EliasFanoBlock.labelByteCount(count: count, labelBits: labelBits)
        let headerBytes = EliasFanoBlock.headerBytes
        let highBytes = bytes.count - headerBytes - lowBytes - labelBytes
        guard highBytes >= 0, (count == 1) == (highBytes == 0) else { return nil }
        self.bytes = bytes
        self.count = count
        self.base = base
        self.labelBits = labelBits
        self.lowBits = lowBits
        self.lowStart = headerBytes
        self.highStart = headerBytes + lowBytes
        self.highBitCount = highBytes * 8
        self.labelStart = headerBytes + lowBytes + highBytes
    }

    /// Reads `width` (<= 57) bits at bit offset `bit` from byte offset `start`.
    @inline(__always)
    private func field(start: Int, bit: Int, width: Int) -> UInt64 {
        guard width > 0 else { return 0 }
        let byte = start + bit >> 3
        let word = loadWord(at: byte) >> UInt64(bit & 7)
        return word & (UInt64.max >> UInt64(64 - width))
    }

    /// 8 bytes at `offset`, zero-filled past the block's end.
    @inline(__always)
    private func loadWord(at offset: Int) -> UInt64 {
        if offset + 8 <= bytes.count {
            return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }
        var word: UInt64 = 0
        var i = offset
        while i < bytes.count {
            word |= UInt64(bytes[i]) << UInt64((i - offset) * 8)
            i += 1
        }
        return word
    }

    @inline(__always)
    private func low(_ j: Int) -> UInt64 { field(start: lowStart, bit: j * lowBits, width: lowBits) }

    /// Label id of entry `index` (0 when the file stores no label bits).
    func label(at index: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: field(start: labelStart, bit: index * labelBits, width: labelBits))
    }

    /// High-vector word `w` (64 bits starting at bit 64*w).
    @inline(__always)
    private func highWord(_ w: Int) -> UInt64 { loadWord(at: highStart + w * 8) & highMask(w) }

    @inline(__always)
    private func highMask(_ w: Int) -> UInt64 {
        let remaining = highBitCount - w * 64
        return remaining >= 64 ? UInt64.max : (remaining <= 0 ? 0 : UInt64.max >> UInt64(64 - remaining))
    }

    /// Position of `number` in the block, or nil when absent.
    func index(of number: Int64) -> Int? {
        if number == base { return 0 }
        guard number > base, count > 1 else { return nil }
        let rel = UInt64(number &- base)
        var zerosToSkip = Int(clamping: rel >> UInt64(lowBits))
        let target = lowBits == 0 ? 0 : rel & (UInt64.max >> UInt64(64 - lowBits))
        var wordIndex = 0
        var ones = 0
        var bit = 0  // first bit of the bucket of `number`'s high part
        let words = (highBitCount + 63) / 64
        if zerosToSkip > 0 {
            while true {
                guard wordIndex < words else { return nil }
                let word = highWord(wordIndex)
                let validBits = min(64, highBitCount - wordIndex * 64)
                let zeros = validBits - word.nonzeroBitCount
                if zeros < zerosToSkip {
                    zerosToSkip -= zeros
                    ones += word.nonzeroBitCount
                    wordIndex += 1
                    continue
                }
                var inverted = ~word & highMask(wordIndex)
                for _ in 1..<zerosToSkip { inverted &= inverted &- 1 }
                let zeroBit = inverted.trailingZeroBitCount
                ones += (word & ((UInt64(1) << UInt64(zeroBit)) &- 1)).nonzeroBitCount
                bit = wordIndex * 64 + zeroBit + 1
                break
            }
        }
        while bit < highBitCount, ones < count - 1 {  // walk the bucket: ones until the next zero
            guard highWord(bit >> 6) & (UInt64(1) << UInt64(bit & 63)) != 0 else { return nil }
            let value = low(ones)
            if value == target { return ones + 1 }
            if value > target { return nil }
            ones += 1
            bit += 1
        }
        return nil
    }

    /// Calls `body` with every value in order; stops early when it returns false.
    /// Returns the number of values decoded (less than `count` means the block is damaged).
    @discardableResult
    func forEach(_ body: (Int64) -> Bool) -> Int {
        guard body(base) else { return 1 }
        var produced = 1
        var bit = 0
        while produced < count, bit < highBitCount {
            let wordIndex = bit >> 6
            var word = highWord(wordIndex) >> UInt64(bit & 63)
            if word == 0 { bit = (wordIndex + 1) * 64; continue }
            let skip = word.trailingZeroBitCount
            bit += skip
            word >>= UInt64(skip)
            let j = produced - 1
            let high = UInt64(bit - j)
            let rel = (high << UInt64(lowBits)) | low(j)
            guard rel <= UInt64(Int64.max), Int64(rel) <= Int64.max - base else { return produced }
            produced += 1
            if !body(base + Int64(rel)) { return produced }
            bit += 1
        }
        return produced
    }
}
