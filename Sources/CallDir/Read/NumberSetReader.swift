/// Reads one numbers section through its directory, in place: a binary search over the
/// directory picks the block, one block is decoded. Checks at open make every offset safe;
/// block CRCs are checked per lookup unless the whole file was verified.
struct NumberSetReader {
    let data: UnsafeRawBufferPointer
    let directory: UnsafeRawBufferPointer  // entries only, 16 bytes each
    let count: Int
    let blockCount: Int
    let name: String

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
        var previousOffset = -1
        var previousFirst = Int64.min
        for i in 0..<blockCount {
            let (first, offset, _) = entry(i)
            guard offset > previousOffset, first > previousFirst || i == 0 else {
                throw damage("directory entry \(i) is out of order")
            }
            previousOffset = offset
            previousFirst = first
        }
        if blockCount > 0, entry(blockCount - 1).offset + EliasFanoBlock.headerBytes > dataEnd {
            throw damage("last block starts past the end of the section")
        }
    }

    /// End of the block bytes (the section's zero padding follows).
    var dataEnd: Int { data.count - IndexFormat.blockDataPadding }

    @inline(__always)
    func entry(_ i: Int) -> (first: Int64, offset: Int, crc: UInt32) {
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
        var low = 0
        var high = blockCount  // invariant: blocks before `low` start <= number, from `high` on > number
        while low < high {
            let mid = (low + high) >> 1
            if entry(mid).first <= number { low = mid + 1 } else { high = mid }
        }
        return low == 0 ? nil : low - 1
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
        guard let b = blockIndex(for: number) else { return nil }
        if checkBlock, !blockIsIntact(b) {
            throw CallDirError(.corruptIndex, "\(name): block \(b) fails its checksum; run `calldir verify`",
                               path: path, offset: entry(b).offset)
        }
        guard let block = reader(forBlock: b) else {
            throw CallDirError(.corruptIndex, "\(name): block \(b) is malformed", path: path)
        }
        return block.index(of: number).map { block.label(at: $0) }
    }
}
