/// Reads one Elias-Fano block in place (see `EliasFanoBlock` for the layout). Every offset it
/// reads at is inside the block's bytes: damaged blocks give wrong or no answers, never a
/// crash; checksums (verified before a lookup trusts a block) turn those into damage reports.
///
/// Loads are 8 bytes wide and may run up to 7 bytes past the block's end, where the bits read
/// are masked off: `bytes` must be followed by 8 readable bytes, as blocks in a numbers
/// section are (the section ends with 8 zero bytes).
package struct EliasFanoBlockReader {
    let bytes: UnsafeRawBufferPointer
    let count: Int
    let base: Int64
    let labelBits: Int
    let lowBits: Int
    let lowStart: Int
    let highStart: Int
    let highBitCount: Int
    let labelStart: Int
    /// Identification blocks: entries using stream labels, and the first one's position.
    let streamCount: Int
    let streamBase: Int

    /// Nil when the block's sizes do not add up (damage).
    @inline(__always)
    init?(bytes: UnsafeRawBufferPointer, count: Int, base: Int64, identified: Bool) {
        let headerBytes = EliasFanoBlock.headerBytes(identified: identified)
        guard count >= 1, bytes.count >= headerBytes else { return nil }
        let lowBits = Int(bytes[0])
        let labelBits = Int(bytes[1])
        guard lowBits <= EliasFanoBlock.maxLowBits, labelBits <= 31 else { return nil }
        var streamCount = 0
        var streamBase = 0
        if identified {
            streamCount = Int(bytes.readLE(UInt16.self, at: 2)!)
            streamBase = Int(bytes.readLE(UInt32.self, at: 4)!)
            guard streamCount <= count, streamBase <= LabelRef.maxStreamLabels - streamCount else { return nil }
        } else {
            guard labelBits == 0 else { return nil }
        }
        let lowBytes = EliasFanoBlock.lowByteCount(count: count, lowBits: lowBits)
        let labelBytes = identified ? EliasFanoBlock.labelPartBytes(count: count, streamCount: streamCount, labelBits: labelBits) : 0
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
        self.streamCount = streamCount
        self.streamBase = streamBase
    }

    /// Reads `width` (<= 57) bits at bit offset `bit` from byte offset `start` (inside the block).
    @inline(__always)
    func field(start: Int, bit: Int, width: Int) -> UInt64 {
        guard width > 0 else { return 0 }
        let word = loadWord(at: start &+ bit &>> 3) &>> UInt64(bit & 7)
        return word & (UInt64.max &>> UInt64(64 &- width))
    }

    /// 8 bytes at `offset` (< bytes.count); bytes past the block's end are the 8 readable
    /// bytes that follow it, and callers mask them off.
    @inline(__always)
    private func loadWord(at offset: Int) -> UInt64 {
        UInt64(littleEndian: bytes.baseAddress.unsafelyUnwrapped.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    @inline(__always)
    private func low(_ j: Int) -> UInt64 { field(start: lowStart, bit: j &* lowBits, width: lowBits) }

    /// The `LabelRef` of entry `index` (0 in blocking blocks).
    func label(at index: Int) -> UInt32 {
        if streamCount == 0 {
            return UInt32(truncatingIfNeeded: field(start: labelStart, bit: index &* labelBits, width: labelBits))
        }
        if streamCount == count { return LabelRef.stream(streamBase &+ index) }
        // Map of stream entries: those before `index` give its rank among stream or shared entries.
        // The whole words before index's word are counted without a loop (how many there are
        // varies from lookup to lookup, and a loop's exit was mispredicted): a word is read at
        // min(t, w), inside the map, and counts only when t < w.
        let w = index &>> 6, rest = index & 63
        var before = 0
        for t in 0..<(IndexFormat.blockSize / 64 - 1) {
            let word = loadWord(at: labelStart &+ 8 &* min(t, w))
            before &+= t < w ? word.nonzeroBitCount : 0
        }
        let own = loadWord(at: labelStart &+ 8 &* w)  // index's word: its bits up to index's end in the map
        before &+= (own & ((1 &<< UInt64(rest)) &- 1)).nonzeroBitCount
        if (own &>> UInt64(rest)) & 1 != 0 { return LabelRef.stream(streamBase &+ before) }
        let shared = index &- before
        return UInt32(truncatingIfNeeded: field(start: labelStart &+ (count &+ 7) &>> 3, bit: shared &* labelBits, width: labelBits))
    }

    /// High-vector word `w` (64 bits starting at bit 64*w), bits past the vector cleared.
    @inline(__always)
    private func highWord(_ w: Int) -> UInt64 { loadWord(at: highStart &+ w &* 8) & highMask(w) }

    @inline(__always)
    private func highMask(_ w: Int) -> UInt64 {
        let remaining = highBitCount &- w &* 64
        return remaining >= 64 ? UInt64.max : (remaining <= 0 ? 0 : UInt64.max &>> UInt64(64 &- remaining))
    }

    /// Position of `number` in the block, or nil when it is absent.
    @inline(__always)
    func index(of number: Int64) -> Int? {
        switch locate(number) {
        case .found(let index): return index
        case .absent: return nil
        case .bucket(let bucket): return scan(bucket)
        }
    }

    /// Where a number's search stands after the high bits: answered, or its bucket found.
    enum Probe {
        case found(Int)
        case absent
        case bucket(Bucket)
    }

    /// The entries whose high part equals the number's, still to compare by low part.
    struct Bucket {
        /// First entry of the bucket (entry j is element j + 1 of the block).
        var entry: Int
        /// Its bit in the high vector.
        var bit: Int
        /// The number's low part.
        var target: UInt64
    }

    /// First half of a lookup: reads the high bits only.
    ///
    /// The entries whose high part is h = rel >> L (h's bucket) are the set bits between the
    /// h-th and (h+1)-th zero of the high vector. Whole words of zeros are skipped by popcount,
    /// then the h-th zero is found inside its word.
    @inline(__always)
    func locate(_ number: Int64) -> Probe {
        if number == base { return .found(0) }
        guard number > base, count > 1 else { return .absent }
        let rel = UInt64(number &- base)
        let bucket = rel &>> UInt64(lowBits)
        guard bucket < UInt64(highBitCount) else { return .absent }  // more zeros than the vector has bits
        let target = lowBits == 0 ? 0 : rel & (UInt64.max &>> UInt64(64 &- lowBits))
        var start = 0  // first bit of the bucket
        if bucket > 0 {
            let lastWord = (highBitCount &- 1) &>> 6  // words before it are whole
            var zerosLeft = Int(bucket)
            var w = 0
            var zeros = ~loadWord(at: highStart)
            while true {
                if w == lastWord { zeros &= highMask(w) }
                let n = zeros.nonzeroBitCount
                if n >= zerosLeft { break }
                zerosLeft &-= n
                w &+= 1
                guard w <= lastWord else { return .absent }
                zeros = ~loadWord(at: highStart &+ w &* 8)
            }
            start = w &* 64 &+ Self.positionOfSetBit(zeros, zerosLeft &- 1) &+ 1
        }
        // `bucket` zeros and (start - bucket) ones come before the bucket: that many entries.
        return .bucket(Bucket(entry: start &- Int(bucket), bit: start, target: target))
    }

    /// Byte offset of entry `j`'s low part (for a prefetch before `scan`).
    @inline(__always)
    func lowOffset(_ j: Int) -> Int { lowStart &+ (j &* lowBits) &>> 3 }

    /// Second half of a lookup: compares the bucket's low parts with the number's.
    @inline(__always)
    func scan(_ bucket: Bucket) -> Int? {
        var j = bucket.entry
        var bit = bucket.bit
        let last = count &- 1
        while bit < highBitCount, j < last {
            let word = loadWord(at: highStart &+ (bit &>> 6) &* 8)  // bits past the vector are never reached
            guard word & (UInt64(1) &<< UInt64(bit & 63)) != 0 else { return nil }  // the bucket ends
            let value = low(j)
            if value == bucket.target { return j &+ 1 }
            if value > bucket.target { return nil }
            j &+= 1
            bit &+= 1
        }
        return nil
    }

    /// Position of the `k`-th (0-based) set bit of `word`, which has more than `k`.
    @inline(__always)
    static func positionOfSetBit(_ word: UInt64, _ k: Int) -> Int {
        var x = word
        var k = k
        var shift = 0
        // Narrow to the half, quarter, then byte holding the bit, by popcount.
        let low32 = (x & 0xFFFF_FFFF).nonzeroBitCount
        if k >= low32 { k &-= low32; x &>>= 32; shift = 32 }
        let low16 = (x & 0xFFFF).nonzeroBitCount
        if k >= low16 { k &-= low16; x &>>= 16; shift &+= 16 }
        let low8 = (x & 0xFF).nonzeroBitCount
        if k >= low8 { k &-= low8; x &>>= 8; shift &+= 8 }
        for _ in 0..<k { x &= x &- 1 }
        return shift &+ x.trailingZeroBitCount
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
