@testable import CallDirReader
import CallDirSimulator
import FuzzSupport

#if canImport(Glibc)
import Glibc
#endif

// The load record reader: raw input, and bytes 4..<84 after the magic with a valid CRC appended (so
// the field checks are reached). Whatever decodes must encode back to the same bytes, and one
// request loaded from it into the CallKit simulator must not trap: its checksums are set to a
// real index's (and, for an update, the same index as OLD) so that resumes and updates are reached.
let indexPath = getenv("CALLDIR_FUZZ_INDEX").map { String(cString: $0) } ?? "../Tests/CallDirReaderTests/Fixtures/tiny.calldir"
let index: CallDirIndex = {
    guard let index = try? CallDirIndex(path: indexPath) else { fatalError("cannot open \(indexPath); set CALLDIR_FUZZ_INDEX") }
    return index
}()

runFuzzer { data, size in
    let input = Array(fuzzBytes(data, size))
    _ = try? LoadCheckpoint(bytes: input)
    _ = LoadCheckpoint.resumePoint(committed: input, pendingLeftOver: nil)
    let body = LoadCheckpoint.byteCount - 4
    var fixed = LoadCheckpoint.magic + input.dropFirst(4).prefix(body - 4)
    fixed += [UInt8](repeating: 0, count: body - fixed.count)
    let crc = Checksum.crc32(fixed)
    fixed += [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24)]
    if let record = try? LoadRecord(bytes: fixed) {
        precondition(record.bytes == fixed, "record does not round-trip")
        guard var checkpoint = record.checkpoint else { return 0 }
        checkpoint.indexChecksum = index.checksum
        checkpoint.indexByteCount = Int64(index.file.count)
        checkpoint.update = checkpoint.update.map { _ in .init(from: index) }
        let device = CallKitSimulator()
        device.beginRequest(systemSaysIncremental: input.first.map { $0 & 1 == 0 } ?? true)
        _ = try? DeviceLoader(index: index, previous: index, requestSize: 7).loadRequest(into: device, resumingFrom: checkpoint)
        _ = device.endRequest()
    }
    return 0
}
