@testable import CallDirReader
import FuzzSupport

// The load checkpoint reader: raw input, and bytes 4..<40 after the magic with a valid CRC appended (so
// the field checks are reached). Whatever decodes must encode back to the same bytes.
runFuzzer { data, size in
    let input = Array(fuzzBytes(data, size))
    _ = try? LoadCheckpoint(bytes: input)
    _ = LoadCheckpoint.resumePoint(committed: input, pendingLeftOver: nil)
    var fixed = LoadCheckpoint.magic + input.dropFirst(4).prefix(36)
    fixed += [UInt8](repeating: 0, count: 40 - fixed.count)
    let crc = Checksum.crc32(fixed)
    fixed += [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24)]
    if let checkpoint = try? LoadCheckpoint(bytes: fixed) {
        precondition(checkpoint.bytes == fixed, "checkpoint does not round-trip")
    }
    return 0
}
