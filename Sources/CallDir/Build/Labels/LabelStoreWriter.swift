import CallDirReader

/// Writes one label store section (`LabelStoreLayout`) in one pass: the header, the coded
/// labels in blocks of 64, then the directory, kept in memory until then (8 bytes per block).
struct LabelStoreWriter {
    private let writer: IndexWriter
    private let coder: LabelCoder
    private let expected: Int
    private var appended = 0
    private var block: [UInt8] = []
    private var codes: [UInt8] = []
    private var directory: [UInt8] = []
    private var offset = LabelStoreLayout.headerSize  // of the block being filled

    init(writer: IndexWriter, kind: SectionKind, count: Int, coder: LabelCoder) throws {
        self.writer = writer
        self.coder = coder
        expected = count
        try writer.beginSection(kind)
        var header: [UInt8] = []
        header.appendLE(UInt64(count))
        header.appendLE(UInt32(LabelStoreLayout.labelsPerBlock))
        header.appendLE(UInt32(0))
        try writer.write(header)
    }

    mutating func append(_ label: UnsafeRawBufferPointer) throws {
        codes.removeAll(keepingCapacity: true)
        coder.encode(label, into: &codes)
        LabelStoreLayout.appendLength(codes.count, to: &block)
        block.append(contentsOf: codes)
        appended += 1
        if appended % LabelStoreLayout.labelsPerBlock == 0 { try flush() }
    }

    mutating func finish() throws {
        precondition(appended == expected, "LabelStoreWriter: \(appended) labels appended, \(expected) announced")
        try flush()
        try writer.write(directory)
        try writer.endSection()
    }

    private mutating func flush() throws {
        guard !block.isEmpty else { return }
        guard offset <= Int(UInt32.max) - block.count else {
            throw CallDirError(.limitExceeded, "a label store would exceed 4 GiB, the format's limit; split the list",
                               path: writer.destination)
        }
        directory.appendLE(UInt32(offset))
        directory.appendLE(Checksum.crc32(block))
        try writer.write(block)
        offset += block.count
        block.removeAll(keepingCapacity: true)
    }
}
