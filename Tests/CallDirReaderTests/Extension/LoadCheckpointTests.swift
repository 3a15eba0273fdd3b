import CallDirReader
import Testing

@Suite("Load checkpoint")
struct LoadCheckpointTests {
    static var sample: LoadCheckpoint {
        var c = LoadCheckpoint(indexChecksum: 0xDEAD_BEEF, indexByteCount: 19_876)
        c.lastBlockingNumber = 33_162_999_999
        c.blockingFinished = true
        c.lastIdentificationNumber = 18_005_555_555
        c.entriesLoaded = 15_000_000
        return c
    }

    @Test("bytes round-trip and follow FORMAT.md: magic, version 4, flags, checksum, numbers, overlay digests, CRC")
    func roundTrip() throws {
        let bytes = Self.sample.bytes
        #expect(bytes.count == LoadCheckpoint.byteCount)
        #expect(Array(bytes[0..<8]) == [0x43, 0x44, 0x4C, 0x50, 4, 0, 1, 0])
        #expect(Array(bytes[8..<12]) == [0xEF, 0xBE, 0xAD, 0xDE] && Array(bytes[16..<24]) == [0xA4, 0x4D, 0, 0, 0, 0, 0, 0])
        #expect(try LoadCheckpoint(bytes: bytes) == Self.sample)
        #expect(try LoadCheckpoint(bytes: LoadCheckpoint(indexChecksum: 1, indexByteCount: 2).bytes) == LoadCheckpoint(indexChecksum: 1, indexByteCount: 2))
        // The user's layer: its digest at offset 68; an update of the layer alone names the
        // same index and the overlay it started from at offset 76.
        var layered = Self.sample
        layered.overlayDigest = 0x0102_0304_0506_0708
        #expect(Array(layered.bytes[68..<76]) == [8, 7, 6, 5, 4, 3, 2, 1] && layered.bytes[76..<84].allSatisfy { $0 == 0 })
        #expect(try LoadCheckpoint(bytes: layered.bytes) == layered && layered.bytes != Self.sample.bytes)
        var change = LoadCheckpoint(indexChecksum: 5, indexByteCount: 6)
        change.overlayDigest = 9
        change.update = .init(fromChecksum: 5, fromByteCount: 6, fromOverlayDigest: 0xAB)
        #expect(try change.bytes[76] == 0xAB && LoadCheckpoint(bytes: change.bytes) == change)
    }

    @Test("an update records OLD's checksum at offset 12, flag bit 2, and its span's end in both last numbers; inconsistent fields are refused")
    func update() throws {
        var c = LoadCheckpoint(indexChecksum: 0x0102_0304, indexByteCount: 1_000)
        c.update = .init(fromChecksum: 0xA1B2_C3D4, fromByteCount: 0x0102)
        c.lastBlockingNumber = 33_100_000_000
        c.lastIdentificationNumber = 33_100_000_000
        let bytes = c.bytes
        #expect(Array(bytes[6..<8]) == [0x04, 0] && Array(bytes[12..<16]) == [0xD4, 0xC3, 0xB2, 0xA1] && Array(bytes[24..<26]) == [0x02, 0x01])
        #expect(try LoadCheckpoint(bytes: bytes) == c && !c.isFinished && c.updateDoneThrough == 33_100_000_000)
        c.lastIdentificationNumber = 1  // an update's two last numbers differ: damage
        #expect(throws: CallDirError.self) { try LoadCheckpoint(bytes: c.bytes) }
        /// Bytes with fields set by hand and a valid CRC: an update flag with a finished kind,
        /// or OLD's checksum or a phase without the update flag, are damage.
        func forged(flags: UInt16, from: UInt32) -> [UInt8] {
            var b = Array(LoadCheckpoint(indexChecksum: 7, indexByteCount: 64).bytes.dropLast(4))
            b[6] = UInt8(flags & 0xFF)
            b[7] = UInt8(flags >> 8)
            for i in 0..<4 { b[12 + i] = UInt8((from >> (8 * UInt32(i))) & 0xFF) }
            let crc = Checksum.crc32(b)
            return b + (0..<4).map { UInt8((crc >> (8 * UInt32($0))) & 0xFF) }
        }
        #expect(try LoadCheckpoint(bytes: forged(flags: 4, from: 9)).update == .init(fromChecksum: 9, fromByteCount: 0))
        #expect(try LoadCheckpoint(bytes: forged(flags: 3, from: 0)).isFinished)
        for (flags, from) in [(UInt16(5), UInt32(9)), (6, 9), (0, 9), (0x10, 0), (0x20, 0), (0x8000, 0)] {
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

    @Test("the under-way record: 88 bytes FORMAT.md describes, never read as a checkpoint; pending records classified")
    func underWay() throws {
        let record = LoadCheckpoint.underWayRecord
        #expect(record.count == LoadCheckpoint.byteCount && record.count == 88)
        #expect(Array(record[0..<8]) == [0x43, 0x44, 0x4C, 0x50, 4, 0, 0x20, 0] && record[8..<84].allSatisfy { $0 == 0 })
        #expect(Checksum.crc32(Array(record[0..<84])) == UInt32(record[84]) | UInt32(record[85]) << 8 | UInt32(record[86]) << 16 | UInt32(record[87]) << 24)
        #expect(throws: CallDirError.self) { try LoadCheckpoint(bytes: record) }
        #expect(LoadCheckpoint.pendingRecord(nil) == .none)
        #expect(LoadCheckpoint.pendingRecord(record) == .underWay)
        #expect(LoadCheckpoint.pendingRecord(Self.sample.bytes) == .fed(Self.sample))
        #expect(LoadCheckpoint.pendingRecord(Array(record.dropLast())) == .unreadable)
        // Left over as pending, it makes the extension start over.
        #expect(LoadCheckpoint.resumePoint(committed: Self.sample.bytes, pendingLeftOver: record) == nil)
    }

    @Test("resume point: the committed checkpoint, unless a pending one was left over or the bytes are damaged")
    func resumePoint() {
        let good = Self.sample.bytes
        #expect(LoadCheckpoint.resumePoint(committed: good, pendingLeftOver: nil) == Self.sample)
        #expect(LoadCheckpoint.resumePoint(committed: good, pendingLeftOver: good) == nil)
        #expect(LoadCheckpoint.resumePoint(committed: nil, pendingLeftOver: nil) == nil)
        #expect(LoadCheckpoint.resumePoint(committed: Array(good.prefix(10)), pendingLeftOver: nil) == nil)
    }

    @Test("records: the generation at offset 56, the request size at 64, the confirmed flag (bit 3); start-over records are no checkpoint; versions 2 and 3 are refused")
    func records() throws {
        let fed = LoadRecord(generation: 0x0102_0304_0506_0708, checkpoint: Self.sample, requestSize: 250_000)
        let bytes = fed.bytes
        #expect(Array(bytes[56..<64]) == [8, 7, 6, 5, 4, 3, 2, 1] && Array(bytes[64..<68]) == [0x90, 0xD0, 0x03, 0])
        #expect(try LoadRecord(bytes: bytes) == fed)
        #expect(LoadCheckpoint.pendingRecord(bytes) == .fed(Self.sample))
        var confirmed = fed
        confirmed.confirmed = true
        #expect(confirmed.bytes[6] == 0x08 | 1)
        #expect(try LoadRecord(bytes: confirmed.bytes) == confirmed)
        #expect(confirmed.isSameRequest(as: fed) && confirmed.bytes != fed.bytes, "confirmation aside, the same request")
        var other = fed
        other.generation += 1
        #expect(!other.isSameRequest(as: fed), "identical checkpoints of two requests differ by their generation")
        let restart = LoadRecord(generation: 9, checkpoint: nil, requestSize: 500_000)
        #expect(try LoadRecord(bytes: restart.bytes) == restart)
        #expect(LoadCheckpoint.pendingRecord(restart.bytes) == .underWay)
        #expect(throws: CallDirError.self) { try LoadCheckpoint(bytes: restart.bytes) }
        #expect(LoadRecord.nextGeneration(after: [nil, fed.bytes, restart.bytes, [1, 2, 3]]) == fed.generation + 1)
        #expect(LoadRecord.nextGeneration(after: [nil]) == 1)
        // Version 2's 60 bytes (no generation): refused, so the extension starts over.
        var v2 = Array(Self.sample.bytes.prefix(56))
        v2[4] = 2
        let crc = Checksum.crc32(v2)
        v2 += (0..<4).map { UInt8((crc >> (8 * UInt32($0))) & 0xFF) }
        #expect(throws: CallDirError.self) { try LoadRecord(bytes: v2) }
        #expect(LoadCheckpoint.resumePoint(committed: v2, pendingLeftOver: nil) == nil)
        // Version 3's 72 bytes (no overlay digests): refused, so a layer is never taken for none.
        var v3 = Array(Self.sample.bytes.prefix(68))
        v3[4] = 3
        let crc3 = Checksum.crc32(v3)
        v3 += (0..<4).map { UInt8((crc3 >> (8 * UInt32($0))) & 0xFF) }
        #expect(throws: CallDirError.self) { try LoadRecord(bytes: v3) }
    }

    @Test("golden: the version 4 seeds of the checkpoint fuzzer decode to the fields FORMAT.md places, and encode back byte for byte")
    func golden() throws {
        let corpus = String(#filePath.split(separator: "/").dropLast(4).joined(separator: "/")) + "/Fuzz/Corpus/Checkpoint/"
        func read(_ name: String) throws -> [UInt8] { try #require(try SharedFolder(path: "/").read("/" + corpus + name)) }
        let change = try LoadRecord(bytes: read("layer-change-v4.bin"))
        var expected = LoadCheckpoint(indexChecksum: 7, indexByteCount: 64)
        expected.update = .init(fromChecksum: 7, fromByteCount: 64, fromOverlayDigest: 0x0102_0304_0506_0708)
        expected.overlayDigest = 0x1122_3344_5566_7788
        expected.lastBlockingNumber = 33_162_000_042
        expected.lastIdentificationNumber = 33_162_000_042
        expected.entriesLoaded = 3
        #expect(change == LoadRecord(generation: 3, checkpoint: expected, requestSize: 7))
        #expect(try change.bytes == read("layer-change-v4.bin"))
        #expect(try LoadCheckpoint(bytes: read("fresh-v4.bin")) == LoadCheckpoint(indexChecksum: 7, indexByteCount: 64))
        #expect(throws: CallDirError.self) { try LoadCheckpoint(bytes: read("fresh.bin")) }  // version 1: refused
    }
}
