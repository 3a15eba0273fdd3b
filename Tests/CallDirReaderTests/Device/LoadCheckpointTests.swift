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
