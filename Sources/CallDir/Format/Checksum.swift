import CZlib

/// CRC-32 (ISO-HDLC, the zlib/gzip polynomial), computed by zlib, which is fast and already
/// linked for gzip input.
enum Checksum {
    static func crc32(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
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
