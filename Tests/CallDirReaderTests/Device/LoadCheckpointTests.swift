import CallDirReader
import Testing

@Suite("Load checkpoint")
struct LoadCheckpointTests {
    static var sample: LoadCheckpoint {
        var c = LoadCheckpoint(indexChecksum: 0xDEAD_BEEF)
        c.lastBlockingNumber = 33_162_999_999
        c.blockingFinished = true
        c.lastIdentificationNumber = 18_005_555_555
        c.entriesLoaded = 15_000_000
        return c
    }

    @Test("bytes round-trip and follow FORMAT.md: magic, version 1, flags, checksum, numbers, CRC")
    func roundTrip() throws {
        let bytes = Self.sample.bytes
        #expect(bytes.count == LoadCheckpoint.byteCount)
        #expect(Array(bytes[0..<8]) == [0x43, 0x44, 0x4C, 0x50, 1, 0, 1, 0])
        #expect(Array(bytes[8..<12]) == [0xEF, 0xBE, 0xAD, 0xDE])
        #expect(try LoadCheckpoint(bytes: bytes) == Self.sample)
        #expect(try LoadCheckpoint(bytes: LoadCheckpoint(indexChecksum: 1).bytes) == LoadCheckpoint(indexChecksum: 1))
    }

    @Test("an update records OLD's checksum at offset 12 and the phase in flag bits 2-4; inconsistent fields are refused")
    func update() throws {
        var c = LoadCheckpoint(indexChecksum: 0x0102_0304)
        c.update = .init(fromChecksum: 0xA1B2_C3D4, phase: .addIdentification)
        c.lastIdentificationNumber = 33_100_000_000
        let bytes = c.bytes
        #expect(Array(bytes[6..<8]) == [0x1C, 0] && Array(bytes[12..<16]) == [0xD4, 0xC3, 0xB2, 0xA1])
        #expect(try LoadCheckpoint(bytes: bytes) == c && !c.isFinished)
        for phase in LoadCheckpoint.UpdatePhase.allCases {
            c.update?.phase = phase
            #expect(try LoadCheckpoint(bytes: c.bytes).update?.phase == phase)
        }
        /// Bytes with fields set by hand and a valid CRC: an update flag with a finished kind,
        /// or OLD's checksum or a phase without the update flag, are damage.
        func forged(flags: UInt16, from: UInt32) -> [UInt8] {
            var b = Array(LoadCheckpoint(indexChecksum: 7).bytes[0..<40])
            b[6] = UInt8(flags & 0xFF)
            b[7] = UInt8(flags >> 8)
            for i in 0..<4 { b[12 + i] = UInt8((from >> (8 * UInt32(i))) & 0xFF) }
            let crc = Checksum.crc32(b)
            return b + (0..<4).map { UInt8((crc >> (8 * UInt32($0))) & 0xFF) }
        }
        #expect(try LoadCheckpoint(bytes: forged(flags: 4, from: 9)).update == .init(fromChecksum: 9, phase: .removeBlocking))
        #expect(try LoadCheckpoint(bytes: forged(flags: 3, from: 0)).isFinished)
        for (flags, from) in [(UInt16(5), UInt32(9)), (6, 9), (0, 9), (8, 0), (0x20, 0), (0x8000, 0)] {
            #expect(throws: CallDirError.self) { try LoadCheckpoint(bytes: forged(flags: flags, from: from)) }
        }
    }

    @Test("every flipped bit, a wrong length or a newer version is refused, never misread")
    func damage() {
        let bytes = Self.sample.bytes
        for bit in 0..<(bytes.count * 8) {
            var damaged = bytes
            damaged[bit / 8] ^= UInt8(1 << (bit % 8))
            #expect(throws: CallDirError.self) { try LoadCheckpoint(bytes: damaged) }
        }
        #expect(throws: CallDirError.self) { try LoadCheckpoint(bytes: Array(bytes.dropLast())) }
        #expect(throws: CallDirError.self) { try LoadCheckpoint(bytes: []) }
    }

    @Test("resume point: the committed checkpoint, unless a pending one was left over or the bytes are damaged")
    func resumePoint() {
        let good = Self.sample.bytes
        #expect(LoadCheckpoint.resumePoint(committed: good, pendingLeftOver: nil) == Self.sample)
        #expect(LoadCheckpoint.resumePoint(committed: good, pendingLeftOver: good) == nil)
        #expect(LoadCheckpoint.resumePoint(committed: nil, pendingLeftOver: nil) == nil)
        #expect(LoadCheckpoint.resumePoint(committed: Array(good.prefix(10)), pendingLeftOver: nil) == nil)
    }
}
