/// Streams strictly ascending numbers (and their label ids) into one numbers section as
/// Elias-Fano blocks, and keeps the block directory: 16 bytes per 256 entries, the only part
/// of a compile that grows with the list (6 MB at 100 million entries).
final class NumberSetEncoder {
    private let writer: IndexWriter
    private let withLabels: Bool
    private var values: [Int64] = []
    private var labels: [UInt32] = []
    private var scratch: [UInt8] = []
    private var sectionLength = 0
    private(set) var directory: [DirectoryEntry] = []
    private(set) var count = 0
    private(set) var last: Int64?

    init(writer: IndexWriter, kind: SectionKind, withLabels: Bool) throws {
        self.writer = writer
        self.withLabels = withLabels
        values.reserveCapacity(IndexFormat.blockSize)
        labels.reserveCapacity(IndexFormat.blockSize)
        try writer.beginSection(kind)
    }

    /// `number` must be above every number appended before (the caller validated order).
    @inline(__always)
    func append(_ number: Int64, label: UInt32 = 0) throws {
        precondition(last.map { number > $0 } ?? true, "NumberSetEncoder: numbers must ascend")
        values.append(number)
        if withLabels { labels.append(label) }
        last = number
        count += 1
        if values.count == IndexFormat.blockSize { try flushBlock() }
    }

    /// Writes the last block and the section's padding, and closes the section.
    func finish() throws {
        try flushBlock()
        try writer.write([UInt8](repeating: 0, count: IndexFormat.blockDataPadding))
        try writer.endSection()
    }

    /// Writes the directory as its own section (after `finish`).
    func writeDirectory(kind: SectionKind) throws {
        var out: [UInt8] = []
        out.reserveCapacity(IndexFormat.directoryHeaderSize + directory.count * IndexFormat.directoryEntrySize)
        out.appendLE(UInt64(count))
        out.appendLE(UInt32(IndexFormat.blockSize))
        out.appendLE(UInt32(0))
        for entry in directory {
            out.appendLE(entry.first)
            out.appendLE(entry.offset)
            out.appendLE(entry.crc)
        }
        try writer.beginSection(kind)
        try writer.write(out)
        try writer.endSection()
    }

    private func flushBlock() throws {
        guard !values.isEmpty else { return }
        scratch.removeAll(keepingCapacity: true)
        values.withUnsafeBufferPointer { v in
            if withLabels {
                labels.withUnsafeBufferPointer { EliasFanoBlock.encode(v, labels: $0, into: &scratch) }
            } else {
                EliasFanoBlock.encode(v, labels: nil, into: &scratch)
            }
        }
        guard sectionLength <= Int(UInt32.max) - scratch.count else {
            throw CallDirError(.limitExceeded, "a numbers section would exceed 4 GiB, the format's limit; split the list",
                               path: writer.destination)
        }
        directory.append(DirectoryEntry(first: values[0], offset: UInt32(sectionLength),
                                        crc: Checksum.crc32(scratch)))
        try writer.write(scratch)
        sectionLength += scratch.count
        values.removeAll(keepingCapacity: true)
        labels.removeAll(keepingCapacity: true)
    }
}

/// Where a block starts, its first number, and its CRC.
struct DirectoryEntry: Equatable {
    var first: Int64
    var offset: UInt32
    var crc: UInt32
}
