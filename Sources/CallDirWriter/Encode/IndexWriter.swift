import CallDirReader

/// Writes an index file as FORMAT.md lays it out: a header placeholder, sections appended in
/// order (each 64-byte aligned, each with its CRC), the section table, the trailer, and finally
/// the real header. Nothing is visible at the destination until `publish()`.
package final class IndexWriter {
    private let file: AtomicFile
    private var table: [SectionEntry] = []
    private var open: (kind: SectionKind, offset: Int, crc: UInt32)?
    /// CRC of every byte after the header, for the trailer's whole-file CRC.
    private var bodyCRC: UInt32 = 0

    package var destination: String { file.destination }
    /// The header's magic, version and bytes 36..<60 (an index's by default; a delta's).
    package var headerTemplate = FileHeader(sectionCount: 0, fileSize: 0, sectionTableOffset: 0, sectionTableCRC: 0)

    package init(destination: String) throws {
        file = try AtomicFile(destination: destination)
        try file.append([UInt8](repeating: 0, count: IndexFormat.headerSize))
    }

    /// A writer whose file is never published (`compile --check`): the same bytes, in a
    /// nameless scratch file in `folder` (`AtomicFile(unnamedIn:)`), so the read-back passes
    /// and the summary are those of a real compile; `discard()` is its only end.
    package init(scratchIn folder: String, for destination: String) throws {
        file = try AtomicFile(unnamedIn: folder, destination: destination)
        try file.append([UInt8](repeating: 0, count: IndexFormat.headerSize))
    }

    package func beginSection(_ kind: SectionKind) throws {
        precondition(open == nil, "IndexWriter: section \(open!.kind) still open")
        var padding: [UInt8] = []
        padding.append(contentsOf: repeatElement(0, count: (IndexFormat.sectionAlignment
            - file.length % IndexFormat.sectionAlignment) % IndexFormat.sectionAlignment))
        try appendBody(padding)
        open = (kind, file.length, 0)
    }

    package func write(_ bytes: UnsafeRawBufferPointer) throws {
        precondition(open != nil, "IndexWriter: write outside a section")
        open!.crc = Checksum.crc32(bytes, continuing: open!.crc)
        bodyCRC = Checksum.crc32(bytes, continuing: bodyCRC)
        try file.append(bytes)
    }

    package func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in try write(raw) }
    }

    /// Closes the open section; returns its offset and length.
    @discardableResult
    package func endSection() throws -> (offset: Int, length: Int) {
        guard let section = open else { preconditionFailure("IndexWriter: no open section") }
        open = nil
        let length = file.length - section.offset
        table.append(SectionEntry(kind: section.kind, offset: section.offset, length: length, crc: section.crc))
        return (section.offset, length)
    }

    /// Maps the sections written so far (for read-back passes before publishing).
    package func mapWritten() throws -> MappedFile { try file.mapWritten() }

    /// The bytes of a closed section inside a mapping from `mapWritten()`.
    package func bytes(of kind: SectionKind, in mapped: MappedFile) -> UnsafeRawBufferPointer {
        guard let entry = table.first(where: { $0.kind == kind }) else { preconditionFailure("no section \(kind)") }
        return UnsafeRawBufferPointer(rebasing: mapped.bytes[entry.offset..<(entry.offset + entry.length)])
    }

    /// Writes table, trailer and header and makes the file durable, still unpublished
    /// (`commit()` publishes it). Returns file size and CRC.
    package func finish() throws -> (size: Int, crc: UInt32) {
        precondition(open == nil, "IndexWriter: publish with a section open")
        var tableBytes: [UInt8] = []
        for entry in table { entry.encode(into: &tableBytes) }
        try appendBody(paddingToAlignment())
        let tableOffset = file.length
        try appendBody(tableBytes)
        let size = file.length + IndexFormat.trailerSize
        var fields = headerTemplate
        fields.sectionCount = table.count
        fields.fileSize = size
        fields.sectionTableOffset = tableOffset
        fields.sectionTableCRC = Checksum.crc32(tableBytes)
        let header = fields.encoded()
        let bodyLength = file.length - IndexFormat.headerSize
        let fileCRC = Checksum.combine(Checksum.crc32(header), bodyCRC, lengthB: bodyLength)
        var trailer: [UInt8] = []
        trailer.appendLE(fileCRC)
        trailer.appendLE(UInt32(0))
        trailer.append(contentsOf: IndexFormat.trailerMagic)
        try file.append(trailer)
        try file.write(header, at: 0)
        try file.prepare()
        return (size, fileCRC)
    }

    /// Publishes the finished file atomically over the destination.
    package func commit() throws { try file.commit() }

    package func discard() { file.discard() }

    private func paddingToAlignment() -> [UInt8] {
        let a = IndexFormat.sectionAlignment
        return [UInt8](repeating: 0, count: (a - file.length % a) % a)
    }

    private func appendBody(_ bytes: [UInt8]) throws {
        bodyCRC = Checksum.crc32(bytes, continuing: bodyCRC)
        try file.append(bytes)
    }
}
