import CallDirReader

/// Streams strictly ascending numbers (and their label refs) into one numbers section as
/// Elias-Fano blocks, and keeps the block directory: 16 bytes per 256 entries, the only part
/// of a compile that grows with the list (6 MB at 100 million entries).
///
/// A struct whose hot state the compiler can check statically: as a class, every `append`
/// paid for run-time exclusivity checks on its stored properties (~90 instructions per entry).
package struct NumberSetEncoder {
    private let writer: IndexWriter
    private let withLabels: Bool
    private let block = BlockBuffer()
    private var pending = 0
    private var scratch: [UInt8] = []
    private var sectionLength = 0
    package private(set) var directory: [DirectoryEntry] = []
    package private(set) var count = 0
    private var last = Int64.min
    /// Stream label refs appended so far (they must come numbered in order).
    private var streamLabels = 0

    package init(writer: IndexWriter, kind: SectionKind, withLabels: Bool) throws {
        self.writer = writer
        self.withLabels = withLabels
        scratch.reserveCapacity(4 * IndexFormat.blockSize + 64)
        try writer.beginSection(kind)
    }

    /// `number` must be above every number appended before (the caller validated order).
    @inline(__always)
    package mutating func append(_ number: Int64, label: UInt32 = 0) throws {
        precondition(number > last || count == 0, "NumberSetEncoder: numbers must ascend")
        block.values[pending] = number
        block.labels[pending] = label
        pending &+= 1
        last = number
        count &+= 1
        if pending == IndexFormat.blockSize { try flushBlock() }
    }

    /// Writes the last block and the section's padding, and closes the section.
    package mutating func finish() throws {
        try flushBlock()
        try writer.write([UInt8](repeating: 0, count: IndexFormat.blockDataPadding))
        try writer.endSection()
    }

    /// Writes the directory as its own section (after `finish`), then, for an index (not a
    /// delta), its page table as section `pages`: the directory's header, then per 64 entries
    /// the page's first number, first offset and the CRC of its entries (FORMAT.md).
    package func writeDirectory(kind: SectionKind, pages: SectionKind?) throws {
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
        guard let pages else { return }
        var table: [UInt8] = []
        table.appendLE(UInt64(count))
        table.appendLE(UInt32(IndexFormat.blockSize))
        table.appendLE(UInt32(IndexFormat.directoryPageEntries))
        let pageBytes = IndexFormat.directoryPageEntries * IndexFormat.directoryEntrySize
        for start in stride(from: 0, to: directory.count, by: IndexFormat.directoryPageEntries) {
            let entries = out[(IndexFormat.directoryHeaderSize + start * IndexFormat.directoryEntrySize)...].prefix(pageBytes)
            table.appendLE(directory[start].first)
            table.appendLE(directory[start].offset)
            table.appendLE(entries.withUnsafeBytes { Checksum.crc32($0) })
        }
        try writer.beginSection(pages)
        try writer.write(table)
        try writer.endSection()
    }

    private mutating func flushBlock() throws {
        guard pending > 0 else { return }
        scratch.removeAll(keepingCapacity: true)
        let values = UnsafeBufferPointer(start: block.values, count: pending)
        let labels = withLabels ? UnsafeBufferPointer(start: block.labels, count: pending) : nil
        EliasFanoBlock.encode(values, labels: labels, streamBase: streamLabels, into: &scratch)
        if let labels { streamLabels += labels.reduce(0) { $0 + (LabelRef.isStream($1) ? 1 : 0) } }
        guard sectionLength <= Int(UInt32.max) - scratch.count else {
            throw CallDirError(.limitExceeded, "a numbers section would exceed 4 GiB, the format's limit; split the list",
                               path: writer.destination)
        }
        directory.append(DirectoryEntry(first: values[0], offset: UInt32(sectionLength),
                                        crc: Checksum.crc32(scratch)))
        try writer.write(scratch)
        sectionLength += scratch.count
        pending = 0
    }
}

/// The values and label ids of the block being filled: fixed storage, written through
/// pointers (no copy-on-write checks per entry).
private final class BlockBuffer {
    package let values = UnsafeMutablePointer<Int64>.allocate(capacity: IndexFormat.blockSize)
    package let labels = UnsafeMutablePointer<UInt32>.allocate(capacity: IndexFormat.blockSize)

    deinit {
        values.deallocate()
        labels.deallocate()
    }
}

/// Where a block starts, its first number, and its CRC.
package struct DirectoryEntry: Equatable {
    package var first: Int64
    package var offset: UInt32
    package var crc: UInt32
}
