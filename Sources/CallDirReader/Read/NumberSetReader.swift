import CKernels

/// Reads one numbers section through its directory, in place: a search of the directory
/// picks the block, one block is decoded. Directory pages are checked before their entries are
/// used (`DirectoryPages`: at open without a page table, else when first needed), so every
/// offset is safe; block CRCs are checked per lookup unless the whole file was verified.
package struct NumberSetReader {
    package let data: UnsafeRawBufferPointer
    package let directory: UnsafeRawBufferPointer  // entries only, 16 bytes each
    package let count: Int
    package let blockCount: Int
    package let name: String
    /// Identification set: blocks carry label refs (the longer block header).
    package let identified: Bool
    /// The page table, the pages checked so far and the search summary they filled.
    package let pages: DirectoryPages
    package static let summaryStride = 4  // divides the page size
    /// Blocks whose CRC matched already (lookups on an index not verified at open).
    package let checked: CheckedBlocks
    /// The index's shared and stream label counts (identification sets of an index), against
    /// which a block's first decode checks its ids, S and C; nil: not checked there.
    package let labelCounts: (shared: Int, stream: Int)?

    /// Reads the directory's header and, with `pagesSection` (format 2.1), the page table;
    /// without one, checks every page now. Throws on any inconsistency.
    package init(data: UnsafeRawBufferPointer, directorySection: UnsafeRawBufferPointer,
                 pagesSection: UnsafeRawBufferPointer? = nil, name: String, identified: Bool,
                 labelCounts: (shared: Int, stream: Int)? = nil, path: String) throws {
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
        directory = UnsafeRawBufferPointer(rebasing: directorySection[IndexFormat.directoryHeaderSize...])
        self.count = Int(count)
        self.blockCount = blockCount
        self.name = name
        self.identified = identified
        self.labelCounts = labelCounts
        checked = CheckedBlocks(blockCount: blockCount)
        let lastBlockLimit = data.count - IndexFormat.blockDataPadding - EliasFanoBlock.headerBytes(identified: identified)
        if let pagesSection {
            pages = try DirectoryPages.parse(pagesSection, directoryHeader: directorySection, blockCount: blockCount,
                                             lastBlockLimit: lastBlockLimit, name: name, path: path)
        } else {
            pages = DirectoryPages.derived(from: directory, blockCount: blockCount)
            try checkAllPages(path: path)
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
    /// Throws when the directory page it needs is damaged.
    @inline(__always)
    package func blockIndex(for number: Int64, path: String) throws -> Int? {
        guard let group = try summaryIndex(for: number, path: path) else { return nil }
        return blockIndex(for: number, fromSummary: group)
    }

    /// The last summary entry at or below `number` (nil: below every block), its page checked.
    /// "Below every block" is answered only once page 0 is checked: the page table's first
    /// number alone (forged higher, CRCs resealed) would make block 0's numbers absent, and a
    /// blocking list must fail closed.
    @inline(__always)
    package func summaryIndex(for number: Int64, path: String) throws -> Int? {
        guard let p = pages.page(for: number) else {
            if pages.count > 0 { try ensurePage(0, path: path) }
            return nil
        }
        try ensurePage(p, path: path)
        return pages.summarySlot(for: number, inPage: p)
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
        guard let group = try summaryIndex(for: number, path: path) else { return nil }
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

    /// The reader of block `b`; with `checkBlock`, only once its CRC matched and its first
    /// decode passed `checkFirstDecode` (once per block and process).
    @inline(__always)
    package func checkedReader(_ b: Int, checkBlock: Bool, path: String) throws -> EliasFanoBlockReader {
        try ensurePage(b / DirectoryPages.entriesPerPage, path: path)
        if checkBlock, !checked.contains(b) {
            guard blockIsIntact(b) else {
                throw CallDirError(.corruptIndex, "\(name): block \(b) fails its checksum; run `calldir verify`",
                                   path: path, offset: entry(b).offset)
            }
            try checkFirstDecode(b, path: path)
            checked.insert(b)
        }
        guard let block = reader(forBlock: b) else {
            throw CallDirError(.corruptIndex, "\(name): block \(b) is malformed", path: path)
        }
        return block
    }
}
