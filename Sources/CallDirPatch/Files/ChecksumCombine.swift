import CZlib
import CallDirReader

extension Checksum {
    /// CRC of A followed by B, from CRC(A), CRC(B) and B's length (the writer's whole-file CRC).
    static func combine(_ crcA: UInt32, _ crcB: UInt32, lengthB: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: crc32_combine(UInt(crcA), UInt(crcB), off_t(lengthB)))
    }
}
