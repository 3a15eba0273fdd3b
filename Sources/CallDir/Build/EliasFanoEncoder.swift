import CallDirReader

/// The writing half of `EliasFanoBlock` (layout and sizes live with the reader).
extension EliasFanoBlock {
    /// Appends the encoding of `values` (ascending, count 1...blockSize) and their label ids.
    /// Sizes are computed first, then every part is written in place into zeroed bytes: low
    /// parts and labels a 64-bit word at a time, the unary high parts as single bits.
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
        let lowStart = out.count + headerBytes
        let highStart = lowStart + lowByteCount(count: n, lowBits: lowBits)
        let highBytes = m == 0 ? 0 : (Int(maxRel >> UInt64(lowBits)) + m + 7) / 8
        let labelStart = highStart + highBytes
        let end = labelStart + labelByteCount(count: n, labelBits: labelBits)
        // 8 bytes of slack: word stores may run past a part's end (with zero bits).
        out.append(contentsOf: repeatElement(0, count: end + 8 - out.count))
        out.withUnsafeMutableBytes { bytes in
            bytes[lowStart - 2] = UInt8(lowBits)
            bytes[lowStart - 1] = UInt8(labelBits)
            var low = PackedBits(bytes, at: lowStart)
            let lowMask: UInt64 = lowBits == 0 ? 0 : (UInt64.max >> UInt64(64 - lowBits))
            for i in 1..<max(n, 1) { low.append(UInt64(values[i] &- base) & lowMask, bits: lowBits) }
            low.finish()
            for i in 1..<max(n, 1) {  // unary high parts: bit (rel >> L) + j for entry j = i - 1
                let position = Int(UInt64(values[i] &- base) >> UInt64(lowBits)) &+ (i &- 1)
                bytes[highStart &+ position &>> 3] |= UInt8(1) &<< UInt8(position & 7)
            }
            if let labels, labelBits > 0 {
                var packed = PackedBits(bytes, at: labelStart)
                for id in labels { packed.append(UInt64(id), bits: labelBits) }
                packed.finish()
            }
        }
        out.removeLast(8)
    }
}

/// Packs fixed-width fields least-significant bit first into zeroed bytes, storing a 64-bit
/// word whenever one fills up. `finish` stores the partial last word whole: the caller
/// leaves 8 bytes of slack, and its extra bytes are zero.
struct PackedBits {
    private let bytes: UnsafeMutableRawBufferPointer
    private var offset: Int
    private var pending: UInt64 = 0
    private var pendingBits = 0

    init(_ bytes: UnsafeMutableRawBufferPointer, at offset: Int) {
        self.bytes = bytes
        self.offset = offset
    }

    @inline(__always)
    mutating func append(_ value: UInt64, bits: Int) {
        guard bits > 0 else { return }
        pending |= value &<< UInt64(pendingBits)
        let room = 64 &- pendingBits
        if bits >= room {
            bytes.storeBytes(of: pending.littleEndian, toByteOffset: offset, as: UInt64.self)
            offset &+= 8
            pending = room == 64 ? 0 : value &>> UInt64(room)
            pendingBits = bits &- room
        } else {
            pendingBits &+= bits
        }
    }

    mutating func finish() {
        if pendingBits > 0 { bytes.storeBytes(of: pending.littleEndian, toByteOffset: offset, as: UInt64.self) }
    }
}
