import CallDirReader

/// Deduplicated labels, numbered in order of first addition: the shared labels of a compile
/// (capped by `LabelCollector`) and the labels of range rows.
///
/// Labels are found by their bytes in an open-addressing table (a word-at-a-time hash, bytes compared
/// on a hash match): no `String`, allocation or SipHash per row, which made identification
/// lists compile at a tenth of the speed of blocking lists.
package final class LabelTable {
    // Read for every identification row: exempt from run-time exclusivity checks, which cost
    // more than the lookup (the compile thread alone uses the table).
    /// Label bytes back to back; label i is bytes[starts[i] ..< starts[i + 1]].
    @exclusivity(unchecked) private var bytes: [UInt8] = []
    @exclusivity(unchecked) private var starts: [Int] = [0]
    /// Slot: label id + 1 (0 = empty), and the label's hash. Memory of our own, not an array:
    /// reaching an array stored in a class retains and releases its buffer, which was 7% of an
    /// identification compile here (every row asks whether its label is shared).
    @exclusivity(unchecked) private var slots = UnsafeMutableBufferPointer<(id: UInt32, hash: UInt64)>.allocate(capacity: 64)

    package init() { slots.initialize(repeating: (0, 0)) }

    deinit { slots.deallocate() }

    package var count: Int { starts.count - 1 }

    /// The id of `label` if it was added before.
    package func knownID(_ label: UnsafeRawBufferPointer) -> UInt32? { knownID(label, hash: Self.hash(label)) }

    package func knownID(_ label: UnsafeRawBufferPointer, hash: UInt64) -> UInt32? {
        let slots = self.slots
        var slot = Int(truncatingIfNeeded: hash) & (slots.count - 1)
        while slots[slot].id != 0 {
            if slots[slot].hash == hash {
                let id = Int(slots[slot].id - 1)
                let start = starts[id]
                let same = starts[id + 1] - start == label.count && bytes.withUnsafeBytes {
                    label.isEmpty || bytesEqual($0.baseAddress! + start, label.baseAddress!, count: label.count)
                }
                if same { return UInt32(id) }
            }
            slot = (slot + 1) & (slots.count - 1)
        }
        return nil
    }

    /// The id of `label` (valid UTF-8, already checked), adding it when new.
    package func intern(_ label: UnsafeRawBufferPointer) -> UInt32 { intern(label, hash: Self.hash(label)) }

    package func intern(_ label: UnsafeRawBufferPointer, hash: UInt64) -> UInt32 {
        if let id = knownID(label, hash: hash) { return id }
        let id = UInt32(count)
        bytes.append(contentsOf: label)
        starts.append(bytes.count)
        if count * 2 > slots.count { rehash(capacity: slots.count * 2) } else { place(id, hash: hash) }
        return id
    }

    package func intern(_ label: String) -> UInt32 {
        var label = label
        return label.withUTF8 { intern(UnsafeRawBufferPointer($0)) }
    }

    /// Calls `body` with the bytes of label `id`.
    package func withLabel<R>(_ id: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[starts[id]..<starts[id + 1]])) }
    }

    private func place(_ id: UInt32, hash: UInt64) {
        var slot = Int(truncatingIfNeeded: hash) & (slots.count - 1)
        while slots[slot].id != 0 { slot = (slot + 1) & (slots.count - 1) }
        slots[slot] = (id + 1, hash)
    }

    private func rehash(capacity: Int) {
        slots.deallocate()
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: (0, 0))
        for id in 0..<count { withLabel(id) { place(UInt32(id), hash: Self.hash($0)) } }
    }

    /// A 64-bit hash, 8 bytes a step (multiply and fold, as wyhash-style hashes do); the tail
    /// is packed into one more word with the length, so "a" and "a\0" differ.
    package static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        var at = 0
        while bytes.count &- at >= 8 {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self))
            hash = mix(hash ^ word)
            at &+= 8
        }
        var tail: UInt64 = 0
        for j in 0..<(bytes.count &- at) { tail |= UInt64(bytes[at &+ j]) &<< UInt64(8 &* j) }
        return mix(hash ^ tail ^ 0xA076_1D64_78BD_642F)
    }

    @inline(__always)
    private static func mix(_ x: UInt64) -> UInt64 {
        let product = x.multipliedFullWidth(by: 0xE703_7ED1_A0B4_28DB)
        return product.high ^ product.low
    }
}
