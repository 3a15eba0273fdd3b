import CKernels

/// CRC-32 (ISO-HDLC, the zlib/gzip polynomial), with no dependency beyond CKernels. Inputs
/// of 64 bytes or more are folded with carry-less multiplication where the CPU has it
/// (`calldir_crc32_fold`: ~20x a table, which took 2.4 of the 3.9 million instructions of a
/// one-shot lookup on a 10M-entry index, checking its 625 KB directory); shorter inputs, the
/// last `count % 16` bytes, and every input on other CPUs go through `calldir_crc32_bytes`
/// (on arm64 the CRC32 instructions when the CPU has them, detected at run time; else a table).
package enum Checksum {
    static let canFold = calldir_crc32_fold_available() != 0

    package static func crc32(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return crc }
        if bytes.count >= 64, canFold {
            var consumed = 0
            let folded = calldir_crc32_fold(crc, base, bytes.count, &consumed)
            return calldir_crc32_bytes(folded, base + consumed, bytes.count - consumed)
        }
        return calldir_crc32_bytes(crc, base, bytes.count)
    }

    package static func crc32(_ bytes: [UInt8], continuing crc: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { crc32($0, continuing: crc) }
    }
}

extension CallDirIndex {
    /// The index's checksum as every output shows it (`inspect`, the daemon's answers, /healthz).
    public var checksumText: String { hex(checksum) }
}
