import CKernels

/// Reads one numbers section through its directory, in place: a search of the directory
/// picks the block, one block is decoded. Checks at open make every offset safe; block CRCs
/// are checked per lookup unless the whole file was verified.
struct NumberSetReader {
    let data: UnsafeRawBufferPointer
    let directory: UnsafeRawBufferPointer  // entries only, 16 bytes each
    let count: Int
    let blockCount: Int
    let name: String
    /// The first numbers of every `summaryStride`-th block, copied at open (while the
    /// directory is read for its checks anyway): 2 bytes per 256 entries, small enough to
    /// stay in the CPU caches, where the directory (625 KB at 10 million entries) does not.
    /// A lookup searches it, then reads one or two lines of the directory, not sixteen.
    let summary: [Int64]
    /// Where block 0, 4, 8... starts in the data: lets a lookup guess its block's bytes and
    /// start loading them while the directory line that names the block is still on its way.
    let summaryOffsets: [UInt32]
    static let summaryStride = 4  // a power of two (the loop below shifts by 2)
    /// Blocks whose CRC matched already (lookups on an index not verified at open).
    let checked: CheckedBlocks

    /// Checks the directory against the data section; throws on any inconsistency.
    init(data: UnsafeRawBufferPointer, directorySection: UnsafeRawBufferPointer, name: String, path: String) throws {
        func damage(_ message: String) -> CallDirError {
            CallDirError(.corruptIndex, "\(name): \(message)", path: path)
        }
        guard let count = directorySection.readLE(UInt64.self, at: 0),
              let blockSize = directorySection.readLE(UInt32.self, at: 8) else { throw damage("directory too short") }
        guard blockSize == UInt32(IndexFormat.blockSize) else { throw damage("unexpected block size \(blockSize)") }
        guard count <= UInt64(Int.max / 2) else { throw damage("impossible entry count") }
        let blockCount = (Int(count) + IndexFormat.blockSize - 1) / IndexFormat.blockSize
        let entries = directorySection.count - IndexFormat.directoryHeaderSize
        guard entries == blockCount * IndexFormat.directoryEntrySize else {
            throw damage("directory has room for \(max(0, entries) / 16) blocks, entry count needs \(blockCount)")
        }
        guard data.count >= IndexFormat.blockDataPadding else { throw damage("numbers section too short") }
        self.data = data
        self.directory = UnsafeRawBufferPointer(rebasing: directorySection[IndexFormat.directoryHeaderSize...])
        self.count = Int(count)
        self.blockCount = blockCount
        self.name = name
        // One pass: offsets and first numbers must increase; every 4th first is summarised.
        let stride = Self.summaryStride
        var outOfOrder = -1
        let directory = self.directory
        var offsets = [UInt32](repeating: 0, count: (blockCount + stride - 1) / stride)
        summary = [Int64](unsafeUninitializedCapacity: (blockCount + stride - 1) / stride) { summary, filled in
            guard blockCount > 0, let entries = directory.baseAddress else { return }
            var previousOffset: UInt32 = 0
            var previousFirst = Int64.min
            for i in 0..<blockCount {
                let at = entries + i &* IndexFormat.directoryEntrySize
                let first = Int64(littleEndian: at.loadUnaligned(as: Int64.self))
                let offset = UInt32(littleEndian: at.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
                if i > 0 && (offset <= previousOffset || first <= previousFirst) { outOfOrder = i; break }
                if i & (stride &- 1) == 0 {
                    summary[i &>> 2] = first
                    offsets[i &>> 2] = offset
                }
                previousOffset = offset
                previousFirst = first
            }
            filled = outOfOrder < 0 ? summary.count : 0
        }
        if outOfOrder >= 0 { throw damage("directory entry \(outOfOrder) is out of order") }
        summaryOffsets = offsets
        checked = CheckedBlocks(blockCount: blockCount)
        if blockCount > 0, entry(blockCount - 1).offset + EliasFanoBlock.headerBytes > dataEnd {
            throw damage("last block starts past the end of the section")
        }
    }

    /// End of the block bytes (the section's zero padding follows).
    var dataEnd: Int { data.count - IndexFormat.blockDataPadding }

    @inline(__always)
    func entry(_ i: Int) -> (first: Int64, offset: Int, crc: UInt32) { Self.entry(i, in: directory) }

    @inline(__always)
    private static func entry(_ i: Int, in directory: UnsafeRawBufferPointer) -> (first: Int64, offset: Int, crc: UInt32) {
        let at = i * IndexFormat.directoryEntrySize
        return (Int64(littleEndian: directory.loadUnaligned(fromByteOffset: at, as: Int64.self)),
                Int(UInt32(littleEndian: directory.loadUnaligned(fromByteOffset: at + 8, as: UInt32.self))),
                UInt32(littleEndian: directory.loadUnaligned(fromByteOffset: at + 12, as: UInt32.self)))
    }

    @inline(__always)
    func blockBytes(_ i: Int) -> UnsafeRawBufferPointer {
        let start = entry(i).offset
        let end = i + 1 < blockCount ? entry(i + 1).offset : dataEnd
        return UnsafeRawBufferPointer(rebasing: data[start..<max(start, end)])
    }

    func entriesInBlock(_ i: Int) -> Int {
        i + 1 < blockCount ? IndexFormat.blockSize : count - (blockCount - 1) * IndexFormat.blockSize
    }

    /// Index of the block that would hold `number`, or nil when it is below every entry.
    @inline(__always)
    func blockIndex(for number: Int64) -> Int? {
        guard let group = summaryIndex(for: number) else { return nil }
        return blockIndex(for: number, fromSummary: group)
    }

    /// The last summary entry at or below `number` (nil: below every block).
    @inline(__always)
    func summaryIndex(for number: Int64) -> Int? {
        summary.withUnsafeBufferPointer { firsts in
            let found = calldir_last_at_most(firsts.baseAddress, firsts.count, number)
            return found < 0 ? nil : found
        }
    }

    /// The block for `number` among the `summaryStride` blocks from summary entry `group`.
    @inline(__always)
    func blockIndex(for number: Int64, fromSummary group: Int) -> Int {
        let start = group &* Self.summaryStride
        let end = min(start &+ Self.summaryStride, blockCount)
        var b = start &+ 1
        while b < end, first(b) <= number { b &+= 1 }
        return b &- 1
    }

    @inline(__always)
    func first(_ i: Int) -> Int64 {
        Int64(littleEndian: directory.loadUnaligned(fromByteOffset: i &* IndexFormat.directoryEntrySize, as: Int64.self))
    }

    /// Starts loading the cache lines of block `i` that `locate` reads: the header and the
    /// high bits, which end the block in blocking sets (~1/4 of a block).
    @inline(__always)
    func prefetchHeaderAndHighBits(_ i: Int) {
        let start = entry(i).offset
        let end = i + 1 < blockCount ? entry(i + 1).offset : dataEnd
        guard let base = data.baseAddress, start < end, end <= data.count else { return }
        calldir_prefetch(base + start)
        var line = max(start, end &- (end &- start) / 4 &- 8) & ~63
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
        guard group + 1 < summary.count, let base = data.baseAddress else { return }
        let low = summary[group]
        let span = Double(summary[group + 1] &- low)
        let start = Int(summaryOffsets[group])
        let length = Int(summaryOffsets[group + 1]) &- start
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

    func reader(forBlock i: Int) -> EliasFanoBlockReader? {
        EliasFanoBlockReader(bytes: blockBytes(i), count: entriesInBlock(i), base: entry(i).first)
    }

    /// The block's CRC matches its directory entry.
    func blockIsIntact(_ i: Int) -> Bool {
        Checksum.crc32(blockBytes(i)) == entry(i).crc
    }

    /// Finds `number`: its label id (0 for blocking entries), or nil when absent.
    /// With `checkBlock`, a block whose CRC does not match throws instead of answering.
    @inline(__always)
    func find(_ number: Int64, checkBlock: Bool, path: String) throws -> UInt32? {
        guard let group = summaryIndex(for: number) else { return nil }
        prefetchLikelyBlock(of: number, inGroup: group)
        let b = blockIndex(for: number, fromSummary: group)
        prefetchBlock(b)
        return try find(number, inBlock: b, checkBlock: checkBlock, path: path)
    }

    /// `find` for a group of numbers, as a pipeline whose every stage issues the memory reads
    /// of all the group's numbers before it waits for any: the directory searches advance in
    /// step, then each block's header and high bits are fetched and the bucket located, then
    /// the low parts are fetched and compared. A lookup one at a time waits for memory two or
    /// three times in a row (~150 ns each here); the group waits that often in all.
    /// `body(i, id)` receives the answer for `numbers[i]`, in order.
    func find(group numbers: UnsafeBufferPointer<Int64>, checkBlock: Bool, path: String,
              _ body: (Int, UInt32?) throws -> Void) throws {
        guard blockCount > 0 else {
            for i in numbers.indices { try body(i, nil) }
            return
        }
        try withUnsafeTemporaryAllocation(of: Int.self, capacity: numbers.count) { blocks in
            for i in numbers.indices {  // the summary: in cache; then fetch the directory lines
                let group = summaryIndex(for: numbers[i]) ?? -1
                blocks.initializeElement(at: i, to: group)
                if group >= 0, let base = directory.baseAddress {
                    calldir_prefetch(base + group &* Self.summaryStride &* IndexFormat.directoryEntrySize)
                }
            }
            for i in numbers.indices where blocks[i] >= 0 {
                blocks[i] = blockIndex(for: numbers[i], fromSummary: blocks[i])
            }
            for i in numbers.indices where blocks[i] >= 0 { prefetchHeaderAndHighBits(blocks[i]) }
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

    @inline(__always)
    private func find(_ number: Int64, inBlock b: Int, checkBlock: Bool, path: String) throws -> UInt32? {
        let block = try checkedReader(b, checkBlock: checkBlock, path: path)
        return block.index(of: number).map { block.label(at: $0) }
    }

    /// The reader of block `b`; with `checkBlock`, only once its CRC matched.
    @inline(__always)
    private func checkedReader(_ b: Int, checkBlock: Bool, path: String) throws -> EliasFanoBlockReader {
        if checkBlock, !checked.contains(b) {
            guard blockIsIntact(b) else {
                throw CallDirError(.corruptIndex, "\(name): block \(b) fails its checksum; run `calldir verify`",
                                   path: path, offset: entry(b).offset)
            }
            checked.insert(b)
        }
        guard let block = reader(forBlock: b) else {
            throw CallDirError(.corruptIndex, "\(name): block \(b) is malformed", path: path)
        }
        return block
    }
}
