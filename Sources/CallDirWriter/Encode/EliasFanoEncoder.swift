import CallDirReader

/// The writing half of `EliasFanoBlock` (layout and sizes live with the reader).
extension EliasFanoBlock {
    /// Appends the encoding of `values` (ascending, count 1...blockSize) and, for an
    /// identification block, their label refs (stream refs numbered on from `streamBase`).
    /// Sizes are computed first, then every part is written in place into zeroed bytes: low
    /// parts and labels a 64-bit word at a time, the unary high parts as single bits.
    package static func encode(_ values: UnsafeBufferPointer<Int64>, labels: UnsafeBufferPointer<UInt32>?, streamBase: Int = 0,
                       into out: inout [UInt8]) {
        let n = values.count
        let base = values[0]
        let m = n - 1
        let maxRel = UInt64(values[n - 1] &- base)
        let lowBits = Self.lowBits(maxRel: maxRel, m: m)
        var maxShared: UInt32 = 0
        var streamCount = 0
        for ref in labels ?? UnsafeBufferPointer(start: nil, count: 0) {
            if LabelRef.isStream(ref) { streamCount += 1 } else { maxShared = max(maxShared, ref) }
        }
        let labelBits = Self.labelBits(maxShared: maxShared)
        let start = out.count
        let lowStart = start + headerBytes(identified: labels != nil)
        let highStart = lowStart + lowByteCount(count: n, lowBits: lowBits)
        let highBytes = highByteCount(maxRel: maxRel, lowBits: lowBits, m: m)
        let labelStart = highStart + highBytes
        let end = labelStart + (labels == nil ? 0 : labelPartBytes(count: n, streamCount: streamCount, labelBits: labelBits))
        // 8 bytes of slack: word stores may run past a part's end (with zero bits).
        out.append(contentsOf: repeatElement(0, count: end + 8 - out.count))
        out.withUnsafeMutableBytes { bytes in
            bytes[start] = UInt8(lowBits)
            bytes[start + 1] = UInt8(labelBits)
            if labels != nil {
                bytes.storeBytes(of: UInt16(streamCount).littleEndian, toByteOffset: start + 2, as: UInt16.self)
                bytes.storeBytes(of: UInt32(streamBase).littleEndian, toByteOffset: start + 4, as: UInt32.self)
            }
            var low = PackedBits(bytes, at: lowStart)
            let lowMask: UInt64 = lowBits == 0 ? 0 : (UInt64.max >> UInt64(64 - lowBits))
            for i in 1..<max(n, 1) { low.append(UInt64(values[i] &- base) & lowMask, bits: lowBits) }
            low.finish()
            for i in 1..<max(n, 1) {  // unary high parts: bit (rel >> L) + j for entry j = i - 1
                let position = Int(UInt64(values[i] &- base) >> UInt64(lowBits)) &+ (i &- 1)
                bytes[highStart &+ position &>> 3] |= UInt8(1) &<< UInt8(position & 7)
            }
            if let labels, streamCount < n {
                var sharedStart = labelStart
                if streamCount > 0 {  // the map of stream entries, then the shared ids
                    for (j, ref) in labels.enumerated() where LabelRef.isStream(ref) {
                        bytes[labelStart + j >> 3] |= UInt8(1) << UInt8(j & 7)
                    }
                    sharedStart += (n + 7) / 8
                }
                if labelBits > 0 {
                    var packed = PackedBits(bytes, at: sharedStart)
                    for ref in labels where !LabelRef.isStream(ref) { packed.append(UInt64(ref), bits: labelBits) }
                    packed.finish()
                }
            }
        }
        out.removeLast(8)
    }
}

/// Packs fixed-width fields least-significant bit first into zeroed bytes, storing a 64-bit
/// word whenever one fills up. `finish` stores the partial last word whole: the caller
/// leaves 8 bytes of slack, and its extra bytes are zero.
package struct PackedBits {
    private let bytes: UnsafeMutableRawBufferPointer
    private var offset: Int
    private var pending: UInt64 = 0
    private var pendingBits = 0

    package init(_ bytes: UnsafeMutableRawBufferPointer, at offset: Int) {
        self.bytes = bytes
        self.offset = offset
    }

    @inline(__always)
    package mutating func append(_ value: UInt64, bits: Int) {
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

    package mutating func finish() {
        if pendingBits > 0 { bytes.storeBytes(of: pending.littleEndian, toByteOffset: offset, as: UInt64.self) }
    }
}
