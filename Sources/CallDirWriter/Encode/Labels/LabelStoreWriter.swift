import CallDirReader

/// Codes labels into the blocks of a label store (`LabelStoreLayout`), 32 to a block, each
/// led by its step table (the offsets of labels 4, 8, ... 28), handing
/// each finished block to `sink` and keeping the directory (8 bytes per block) in memory;
/// `writeSection` then writes the header, the blocks and the directory as one section. The
/// blocks may go to memory (shared labels) or to a spill file (stream labels, coded as they
/// arrive), so a store is written in one pass either way.
package struct LabelStoreWriter {
    private let coder: LabelCoder
    private let sink: (UnsafeRawBufferPointer) throws -> Void
    package private(set) var count = 0
    private var block: [UInt8] = []  // the labels of the current block (its step table is added at flush)
    private var steps: [Int] = []  // where labels 4, 8, ... of the current block start in `block`
    /// Per finished block: offset from the first block, CRC.
    package private(set) var directory: [(offset: Int, crc: UInt32)] = []
    /// Bytes of the blocks handed to `sink`.
    package private(set) var length = 0

    package init(coder: LabelCoder, sink: @escaping (UnsafeRawBufferPointer) throws -> Void) {
        self.coder = coder
        self.sink = sink
    }

    package mutating func append(_ label: UnsafeRawBufferPointer) throws {
        let inBlock = count % LabelStoreLayout.labelsPerBlock
        if inBlock > 0, inBlock % LabelStoreLayout.labelsPerStep == 0 { steps.append(block.count) }
        // The codes go straight into the block after a one-byte length; the rare label of 128
        // or more code bytes moves them for its second length byte. (Coding into an array of
        // its own and appending that retained and released it per label.)
        let start = block.count
        block.append(0)
        coder.encode(label, into: &block)
        let length = block.count - start - 1
        if length < 0x80 {
            block[start] = UInt8(length)
        } else {
            var prefix: [UInt8] = []
            LabelStoreLayout.appendLength(length, to: &prefix)
            block.replaceSubrange(start..<(start + 1), with: prefix)
        }
        count += 1
        if count % LabelStoreLayout.labelsPerBlock == 0 { try flush() }
    }

    /// Hands the last, partial block to the sink.
    package mutating func finishBlocks() throws { try flush() }

    private mutating func flush() throws {
        guard !block.isEmpty else { return }
        var table: [UInt8] = []
        // The table's size has one home (the reader uses it too); `steps` must agree with it.
        let tableSize = LabelStoreLayout.stepTableSize(labels: (count - 1) % LabelStoreLayout.labelsPerBlock + 1)
        precondition(tableSize == 2 * steps.count, "LabelStoreWriter: \(steps.count) steps for a table of \(tableSize) bytes")
        for offset in steps { table.appendLE(UInt16(tableSize + offset)) }  // a block is under 17 KiB
        block.insert(contentsOf: table, at: 0)
        directory.append((length, Checksum.crc32(block)))
        try block.withUnsafeBytes { try sink($0) }
        length += block.count
        block.removeAll(keepingCapacity: true)
        steps.removeAll(keepingCapacity: true)
    }

    /// Writes the store as section `kind`: header, `blocks` (what the sink received), directory.
    /// Blocks mapped from a spill file (`releasing`) are copied 4 MiB at a time and their pages
    /// dropped behind the copy, so a large store does not stay resident.
    package func writeSection(_ kind: SectionKind, blocks: UnsafeRawBufferPointer, releasing spill: MappedFile? = nil,
                      to writer: IndexWriter) throws {
        precondition(blocks.count == length, "LabelStoreWriter: \(blocks.count) block bytes, \(length) written")
        guard LabelStoreLayout.headerSize + length <= Int(UInt32.max) else {
            throw CallDirError(.limitExceeded, "a label store would exceed 4 GiB, the format's limit; split the list",
                               path: writer.destination)
        }
        var header: [UInt8] = []
        header.appendLE(UInt64(count))
        header.appendLE(UInt32(LabelStoreLayout.labelsPerBlock))
        header.appendLE(UInt32(LabelStoreLayout.labelsPerStep))
        var table: [UInt8] = []
        table.reserveCapacity(directory.count * LabelStoreLayout.directoryEntrySize)
        for entry in directory {
            table.appendLE(UInt32(LabelStoreLayout.headerSize + entry.offset))
            table.appendLE(entry.crc)
        }
        try writer.beginSection(kind)
        try writer.write(header)
        let chunk = 4 << 20
        var at = 0
        while at < blocks.count {
            let end = min(at + chunk, blocks.count)
            try writer.write(UnsafeRawBufferPointer(rebasing: blocks[at..<end]))
            spill?.release(0..<end)
            at = end
        }
        try writer.write(table)
        try writer.endSection()
    }
}
