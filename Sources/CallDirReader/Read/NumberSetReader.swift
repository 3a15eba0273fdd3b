import CKernels

/// Reads one numbers section through its directory, in place: a search of the directory
/// picks the block, one block is decoded. Checks at open make every offset safe; block CRCs
/// are checked per lookup unless the whole file was verified.
package struct NumberSetReader {
    package let data: UnsafeRawBufferPointer
    package let directory: UnsafeRawBufferPointer  // entries only, 16 bytes each
    package let count: Int
    package let blockCount: Int
    package let name: String
    /// Identification set: blocks carry label refs (the longer block header).
    package let identified: Bool
    /// The first numbers of every `summaryStride`-th block, copied at open (while the
    /// directory is read for its checks anyway): 2 bytes per 256 entries, small enough to
    /// stay in the CPU caches, where the directory (625 KB at 10 million entries) does not.
    /// A lookup searches it, then reads one or two lines of the directory, not sixteen.
    package let summary: [Int64]
    /// Where block 0, 4, 8... starts in the data: lets a lookup guess its block's bytes and
    /// start loading them while the directory line that names the block is still on its way.
    package let summaryOffsets: [UInt32]
    package static let summaryStride = 4  // a power of two (the loop below shifts by 2)
    /// Blocks whose CRC matched already (lookups on an index not verified at open).
    package let checked: CheckedBlocks

    /// Checks the directory against the data section; throws on any inconsistency.
    package init(data: UnsafeRawBufferPointer, directorySection: UnsafeRawBufferPointer, name: String, identified: Bool,
                 path: String) throws {
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
        self.identified = identified
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
                // First numbers must be valid CallKit numbers (>= 1): block decoding subtracts
                // them and would overflow on a negative one.
                if first < E164.validValues.lowerBound || first > E164.validValues.upperBound
                    || (i > 0 && (offset <= previousOffset || first <= previousFirst)) { outOfOrder = i; break }
                if i & (stride &- 1) == 0 {
                    summary[i &>> 2] = first
                    offsets[i &>> 2] = offset
                }
                previousOffset = offset
                previousFirst = first
            }
            filled = outOfOrder < 0 ? summary.count : 0
        }
        if outOfOrder >= 0 { throw damage("directory entry \(outOfOrder) is out of order or out of range") }
        summaryOffsets = offsets
        checked = CheckedBlocks(blockCount: blockCount)
        if blockCount > 0, entry(blockCount - 1).offset + EliasFanoBlock.headerBytes(identified: identified) > dataEnd {
            throw damage("last block starts past the end of the section")
        }
    }

    /// End of the block bytes (the section's zero padding follows).
    package var dataEnd: Int { data.count - IndexFormat.blockDataPadding }

    @inline(__always)
    package func entry(_ i: Int) -> (first: Int64, offset: Int, crc: UInt32) { Self.entry(i, in: directory) }

    @inline(__always)
    private static func entry(_ i: Int, in directory: UnsafeRawBufferPointer) -> (first: Int64, offset: Int, crc: UInt32) {
        let at = i * IndexFormat.directoryEntrySize
        return (Int64(littleEndian: directory.loadUnaligned(fromByteOffset: at, as: Int64.self)),
                Int(UInt32(littleEndian: directory.loadUnaligned(fromByteOffset: at + 8, as: UInt32.self))),
                UInt32(littleEndian: directory.loadUnaligned(fromByteOffset: at + 12, as: UInt32.self)))
    }

    @inline(__always)
    package func blockBytes(_ i: Int) -> UnsafeRawBufferPointer {
        let start = entry(i).offset
        let end = i + 1 < blockCount ? entry(i + 1).offset : dataEnd
        return UnsafeRawBufferPointer(rebasing: data[start..<max(start, end)])
    }

    package func entriesInBlock(_ i: Int) -> Int {
        i + 1 < blockCount ? IndexFormat.blockSize : count - (blockCount - 1) * IndexFormat.blockSize
    }

    /// Index of the block that would hold `number`, or nil when it is below every entry.
    @inline(__always)
    package func blockIndex(for number: Int64) -> Int? {
        guard let group = summaryIndex(for: number) else { return nil }
        return blockIndex(for: number, fromSummary: group)
    }

    /// The last summary entry at or below `number` (nil: below every block).
    @inline(__always)
    package func summaryIndex(for number: Int64) -> Int? {
        summary.withUnsafeBufferPointer { firsts in
            let found = calldir_last_at_most(firsts.baseAddress, firsts.count, number)
            return found < 0 ? nil : found
        }
    }

    /// The block for `number` among the `summaryStride` blocks from summary entry `group`.
    @inline(__always)
    package func blockIndex(for number: Int64, fromSummary group: Int) -> Int {
        let start = group &* Self.summaryStride
        let end = min(start &+ Self.summaryStride, blockCount)
        var b = start &+ 1
        while b < end, first(b) <= number { b &+= 1 }
        return b &- 1
    }

    @inline(__always)
    package func first(_ i: Int) -> Int64 {
        Int64(littleEndian: directory.loadUnaligned(fromByteOffset: i &* IndexFormat.directoryEntrySize, as: Int64.self))
    }

    package func reader(forBlock i: Int) -> EliasFanoBlockReader? {
        EliasFanoBlockReader(bytes: blockBytes(i), count: entriesInBlock(i), base: entry(i).first, identified: identified)
    }

    /// The block's CRC matches its directory entry.
    package func blockIsIntact(_ i: Int) -> Bool {
        Checksum.crc32(blockBytes(i)) == entry(i).crc
    }

    /// Finds `number`: its label id (0 for blocking entries), or nil when absent.
    /// With `checkBlock`, a block whose CRC does not match throws instead of answering.
    @inline(__always)
    package func find(_ number: Int64, checkBlock: Bool, path: String) throws -> UInt32? {
        guard let group = summaryIndex(for: number) else { return nil }
        prefetchLikelyBlock(of: number, inGroup: group)
        let b = blockIndex(for: number, fromSummary: group)
        prefetchBlock(b)
        return try find(number, inBlock: b, checkBlock: checkBlock, path: path)
    }

    @inline(__always)
    private func find(_ number: Int64, inBlock b: Int, checkBlock: Bool, path: String) throws -> UInt32? {
        let block = try checkedReader(b, checkBlock: checkBlock, path: path)
        return block.index(of: number).map { block.label(at: $0) }
    }

    /// The reader of block `b`; with `checkBlock`, only once its CRC matched.
    @inline(__always)
    package func checkedReader(_ b: Int, checkBlock: Bool, path: String) throws -> EliasFanoBlockReader {
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
