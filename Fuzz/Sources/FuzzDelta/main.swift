@testable import CallDir
@testable import CallDirPatch
@testable import CallDirReader
import FuzzSupport

// The delta reader on hostile bytes, as is and resealed (see FuzzIndexReader): open lazily,
// the summary and text `inspect` prints, every number set, label and range walked as a patch
// walks them (blocks checked lazily), then a full verify.
func exercise(_ bytes: UnsafeRawBufferPointer) {
    let file = MappedFile(borrowing: bytes, path: "fuzz-input")
    guard let delta = try? DeltaFile(file: file) else { return }
    _ = delta.infoText
    _ = try? DeltaVerifier(delta: delta).verifyAll()  // lazily opened: blocks checked as read
    for table in [delta.removedBlockedRanges, delta.addedBlockedRanges, delta.removedIdentifiedRanges] {
        _ = delta.rangeList(table)
    }
    var text: [UInt8] = []
    for i in 0..<min(delta.addedIdentifiedRanges.count, 64) {
        try? delta.label(delta.addedIdentifiedRanges.range(i).label, into: &text)
    }
    _ = try? DeltaFile(file: file, verify: true)
}

runFuzzerResealed(exercise)
