#if canImport(Glibc)
import Glibc
#endif

/// Deduplicated identification labels, numbered in order of first use. Memory grows with the
/// distinct labels, not with the entries (lists use a few dozen labels for millions of numbers).
///
/// Labels are found by their bytes in an open-addressing table (FNV-1a hash, bytes compared
/// on a hash match): no `String`, allocation or SipHash per row, which made identification
/// lists compile at a tenth of the speed of blocking lists.
final class LabelTable {
    // Read for every identification row: exempt from run-time exclusivity checks, which cost
    // more than the lookup (the compile thread alone uses the table).
    @exclusivity(unchecked) private(set) var labels: [String] = []
    /// Label bytes back to back; label i is bytes[starts[i] ..< starts[i + 1]].
    @exclusivity(unchecked) private var bytes: [UInt8] = []
    @exclusivity(unchecked) private var starts: [Int] = [0]
    /// Slot: label id + 1 (0 = empty), and the label's hash.
    @exclusivity(unchecked) private var slots = [(id: UInt32, hash: UInt64)](repeating: (0, 0), count: 64)

    var count: Int { labels.count }

    /// The id of `label` if it was interned before.
    func knownID(_ label: UnsafeRawBufferPointer) -> UInt32? {
        let hash = Self.hash(label)
        return slots.withUnsafeBufferPointer { slots in
            var slot = Int(truncatingIfNeeded: hash) & (slots.count - 1)
            while slots[slot].id != 0 {
                if slots[slot].hash == hash {
                    let id = Int(slots[slot].id - 1)
                    let start = starts[id]
                    let same = starts[id + 1] - start == label.count && bytes.withUnsafeBytes {
                        label.isEmpty || memcmp($0.baseAddress! + start, label.baseAddress!, label.count) == 0
                    }
                    if same { return UInt32(id) }
                }
                slot = (slot + 1) & (slots.count - 1)
            }
            return nil
        }
    }

    /// The id of `bytes` (valid UTF-8, already checked), adding it when new.
    func intern(_ label: UnsafeRawBufferPointer) -> UInt32 {
        if let id = knownID(label) { return id }
        let id = UInt32(labels.count)
        labels.append(String(decoding: label, as: UTF8.self))
        bytes.append(contentsOf: label)
        starts.append(bytes.count)
        if labels.count * 2 > slots.count { rehash(capacity: slots.count * 2) } else { place(id, hash: Self.hash(label)) }
        return id
    }

    func intern(_ label: String) -> UInt32 {
        var label = label
        return label.withUTF8 { intern(UnsafeRawBufferPointer($0)) }
    }

    private func place(_ id: UInt32, hash: UInt64) {
        var slot = Int(truncatingIfNeeded: hash) & (slots.count - 1)
        while slots[slot].id != 0 { slot = (slot + 1) & (slots.count - 1) }
        slots[slot] = (id + 1, hash)
    }

    private func rehash(capacity: Int) {
        slots = Array(repeating: (0, 0), count: capacity)
        for id in labels.indices {
            bytes[starts[id]..<starts[id + 1]].withUnsafeBytes { place(UInt32(id), hash: Self.hash($0)) }
        }
    }

    private static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return hash
    }

    /// Section bytes: u32 count, (count + 1) u32 offsets into the text, then the UTF-8 text.
    func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.appendLE(UInt32(labels.count))
        var offset: UInt32 = 0
        out.appendLE(offset)
        for label in labels {
            offset += UInt32(label.utf8.count)
            out.appendLE(offset)
        }
        for label in labels { out.append(contentsOf: label.utf8) }
        return out
    }
}

/// Checks a label the way CallKit and a lock screen need it.
enum LabelRule {
    /// Nil when fine, else the reason the row is rejected.
    static func problem(_ bytes: UnsafeRawBufferPointer) -> RejectReason? {
        var trimmed = bytes[...]
        while let f = trimmed.first, f == 0x20 || f == 0x09 { trimmed = trimmed.dropFirst() }
        guard !trimmed.isEmpty else { return .emptyLabel }
        guard bytes.count <= IndexFormat.maxLabelBytes else { return .labelTooLong }
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) { return .labelControlCharacter }
            case .emptyInput: break loop
            case .error: return .labelInvalidUTF8
            }
        }
        return nil
    }
}
