import CZlib
import Testing
@testable import CallDirReader
import TestSupport

/// Here, not in CallDirReaderTests: zlib, the reference, is a Linux system library that the
/// phone libraries' tests do not link.
@Suite("Checksums")
struct ChecksumTests {
    static func zlib(_ crc: UInt32, _ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.withUnsafeBufferPointer { UInt32(crc32(UInt(crc), $0.baseAddress, UInt32($0.count))) }
    }

    @Test("the folded CRC equals zlib's for every length, alignment and starting value")
    func foldedMatchesZlib() {
        var rng = SeededGenerator(seed: 42)
        let data = (0..<70_000).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let lengths = Array(0...600) + [1_023, 1_024, 1_025, 4_096, 65_536, 69_000]
        for length in lengths {
            for offset in [0, 1, 7, 13] where offset + length <= data.count {
                let slice = data[offset..<(offset + length)]
                for start: UInt32 in [0, 0xFFFF_FFFF, 0x1234_5678] {
                    let got = slice.withUnsafeBytes { Checksum.crc32($0, continuing: start) }
                    #expect(got == Self.zlib(start, slice), "length \(length), offset \(offset), start \(start)")
                }
            }
        }
    }
}
