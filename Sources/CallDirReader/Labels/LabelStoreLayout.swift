/// Layout of a label store section (shared-labels and stream-labels; FORMAT.md):
///
///     u64 label count n | u32 labels per block (32) | u32 zero
///     blocks back to back, from byte 16        each: per label, a LEB128 length and its codes
///     directory, the last ceil(n / 32) * 8 bytes: per block a u32 offset (from the section
///     start) and a u32 CRC of the block's bytes
///
/// The directory comes last so a compile can write a store in one pass; block b ends where
/// block b + 1 starts, the last one where the directory starts.
package enum LabelStoreLayout {
    package static let headerSize = 16
    /// A lookup skips on average half a block's labels to reach its own: 32 keeps that to
    /// about 15 short hops, for 0.25 directory bytes per label.
    package static let labelsPerBlock = 32
    /// Format 3: a block starts with the u16 offsets of its labels 4, 8, ..., so a lookup hops
    /// over at most 3 labels (1.5 on average) instead of 15.5: 14 bytes per block, 0.44 per label.
    /// Format 2 stores have no step table (0 in the header).
    package static let labelsPerStep = 4

    /// Bytes of the step table of a block of `k` labels (format 3).
    @inline(__always)
    package static func stepTableSize(labels k: Int) -> Int { 2 * max(0, (k + labelsPerStep - 1) / labelsPerStep - 1) }
    package static let directoryEntrySize = 8
    /// Longest coded label: every byte escaped.
    package static let maxCodedLength = 2 * IndexFormat.maxLabelBytes

    /// Appends `value` as LEB128 (7 bits a byte, low first, high bit = more).
    package static func appendLength(_ value: Int, to out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    /// Reads a LEB128 length of at most two bytes (a coded label is under 2^14 bytes) at `at`;
    /// nil when it runs past `end` or is longer.
    @inline(__always)
    package static func readLength(_ bytes: UnsafeRawBufferPointer, at: inout Int, end: Int) -> Int? {
        guard at < end else { return nil }
        let first = Int(bytes[at])
        at += 1
        if first < 0x80 { return first }
        guard at < end, bytes[at] < 0x80 else { return nil }
        let value = (first & 0x7F) | Int(bytes[at]) << 7
        at += 1
        return value
    }
}
