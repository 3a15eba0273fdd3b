import CKernels

/// Lookups that keep several memory reads in flight. On an index larger than the CPU caches a
/// lookup waits for memory (a dependent random read costs ~150 ns on the machine of
/// docs/BENCHMARKS.md), not for instructions: these start the reads early, and the batch
/// `find` overlaps the reads of many numbers.
extension NumberSetReader {
    /// `find` for a group of numbers, as a pipeline whose every stage issues the memory reads
    /// of all the group's numbers before it waits for any: the directory searches advance in
    /// step, then each block's header and high bits (identification blocks: all of it) are
    /// fetched and the bucket located, then the low parts are fetched and compared. A lookup
    /// one at a time waits for memory two or three times in a row (~150 ns each here); the
    /// group waits that often in all.
    /// `body(i, id)` receives the answer for `numbers[i]`, in order.
    func find(group numbers: UnsafeBufferPointer<Int64>, checkBlock: Bool, path: String,
              _ body: (Int, UInt32?) throws -> Void) throws {
        guard blockCount > 0 else {
            for i in numbers.indices { try body(i, nil) }
            return
        }
        try withUnsafeTemporaryAllocation(of: Int.self, capacity: numbers.count) { blocks in
            for i in numbers.indices {  // the summary: in cache; then fetch the directory lines
                let group = try summaryIndex(for: numbers[i], path: path) ?? -1
                blocks.initializeElement(at: i, to: group)
                if group >= 0, let base = directory.baseAddress {
                    calldir_prefetch(base + group &* Self.summaryStride &* IndexFormat.directoryEntrySize)
                }
            }
            for i in numbers.indices where blocks[i] >= 0 {
                blocks[i] = blockIndex(for: numbers[i], fromSummary: blocks[i])
            }
            for i in numbers.indices where blocks[i] >= 0 { prefetchSearchedLines(blocks[i]) }
            try withUnsafeTemporaryAllocation(of: (EliasFanoBlockReader, EliasFanoBlockReader.Probe)?.self,
                                              capacity: numbers.count) { probes in
                for i in numbers.indices {
                    let b = blocks[i]
                    guard b >= 0 else { probes.initializeElement(at: i, to: nil); continue }
                    let reader = try checkedReader(b, checkBlock: checkBlock, path: path)
                    let probe = reader.locate(numbers[i])
                    if case .bucket(let bucket) = probe, let base = reader.bytes.baseAddress {
                        calldir_prefetch(base + reader.lowOffset(bucket.entry))
                    }
                    probes.initializeElement(at: i, to: (reader, probe))
                }
                defer { probes.deinitialize() }
                for i in numbers.indices {
                    var index: Int?
                    switch probes[i] {
                    case nil: index = nil
                    case (_, .absent)?: index = nil
                    case (_, .found(let found))?: index = found
                    case (let reader, .bucket(let bucket))?: index = reader.scan(bucket)
                    }
                    try body(i, index.flatMap { index in probes[i].map { $0.0.label(at: index) } })
                }
            }
        }
    }

    /// Starts loading the cache lines of block `i` that a lookup reads: in blocking sets the
    /// header and the high bits, which end the block (~1/4 of it); in identification sets the
    /// whole block, whose label part, of a size the header tells, comes after the high bits
    /// (and the entry's label ref is read from it too).
    @inline(__always)
    func prefetchSearchedLines(_ i: Int) {
        let start = entry(i).offset
        let end = i + 1 < blockCount ? entry(i + 1).offset : dataEnd
        guard let base = data.baseAddress, start < end, end <= data.count else { return }
        calldir_prefetch(base + start)
        var line = (identified ? start : max(start, end &- (end &- start) / 4 &- 8)) & ~63
        while line < end {
            calldir_prefetch(base + line)
            line &+= 64
        }
    }

    /// Guesses which of the group's blocks holds `number` (by where it falls between the
    /// group's first numbers) and where that block's bytes lie (blocks of a group are about
    /// equally long), and starts loading them: a lookup one at a time then waits for memory
    /// about once instead of twice (directory line, then block).
    @inline(__always)
    func prefetchLikelyBlock(of number: Int64, inGroup group: Int) {
        // The next slot must be in the same (checked) page: slots of unchecked pages are unset.
        guard (group &+ 1) % DirectoryPages.slotsPerPage != 0, group &+ 1 < pages.summaryCount,
              let base = data.baseAddress else { return }
        let low = pages.summaryFirsts[group]
        let span = Double(pages.summaryFirsts[group &+ 1] &- low)
        let start = Int(pages.summaryOffsets[group])
        let length = Int(pages.summaryOffsets[group &+ 1]) &- start
        guard span > 0, length > 0 else { return }
        let fraction = Double(number &- low) / span
        let guess = min(Self.summaryStride &- 1, Int(fraction * Double(Self.summaryStride)))
        var line = (start &+ length &* guess / Self.summaryStride &- 64) & ~63
        let end = start &+ length &* (guess &+ 1) / Self.summaryStride &+ 64
        while line < end {
            calldir_prefetch(base + max(0, line))
            line &+= 64
        }
    }

    /// Starts loading every cache line of block `i`, so that decoding waits for memory once,
    /// not once per part it reads (header, then high bits, then low bits).
    @inline(__always)
    func prefetchBlock(_ i: Int) {
        let start = entry(i).offset
        let end = i + 1 < blockCount ? entry(i + 1).offset : dataEnd
        guard let base = data.baseAddress, start < end, end <= data.count else { return }
        var line = start
        while line < end {
            calldir_prefetch(base + line)
            line &+= 64
        }
        calldir_prefetch(base + (end &- 1))
    }
}
