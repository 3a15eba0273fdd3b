/// What `verify` refuses beyond checksums and order (FORMAT.md, "What a reader refuses"):
/// every byte of the file belongs to exactly one part, bytes the format calls zero are zero,
/// and every length is the one its formula gives, so two files that decode alike are the
/// same bytes (an independent reader written from FORMAT.md refuses the same files).
extension IndexVerifier {
    /// The file's parts: header, sections, table and trailer neither overlap nor leave a
    /// non-zero gap; reserved fields are zero; sections hold exactly what their counts need.
    func verifyLayout() throws {
        let bytes = index.file.bytes
        let header = try FileHeader.decode(bytes, path: index.path)
        guard header.extra.allSatisfy({ $0 == 0 }) else { throw damage("header", "bytes 36-59 are not zero") }
        let table = header.sectionTableOffset
        guard table % IndexFormat.sectionAlignment == 0 else { throw damage("section table", "not 64-byte aligned") }
        var parts = [(name: "header", start: 0, end: IndexFormat.headerSize),
                     (name: "section table", start: table, end: table + header.sectionCount * IndexFormat.sectionEntrySize),
                     (name: "trailer", start: bytes.count - IndexFormat.trailerSize, end: bytes.count)]
        for i in 0..<header.sectionCount {  // unknown kinds too: they occupy bytes as well
            let at = table + i * IndexFormat.sectionEntrySize
            guard bytes.readLE(UInt32.self, at: at + 4) == 0, bytes.readLE(UInt32.self, at: at + 28) == 0 else {
                throw damage("section table", "entry \(i): reserved bytes are not zero")
            }
            let kind = bytes.readLE(UInt32.self, at: at)!
            let offset = Int(clamping: bytes.readLE(UInt64.self, at: at + 8)!), length = Int(clamping: bytes.readLE(UInt64.self, at: at + 16)!)
            parts.append((SectionKind(rawValue: kind)?.name ?? "section of kind \(kind)", offset, offset + length))
        }
        parts.sort { ($0.start, $0.end) < ($1.start, $1.end) }
        for (before, after) in zip(parts, parts.dropFirst()) {
            guard after.start >= before.end else { throw damage(after.name, "overlaps \(before.name)") }
            guard isZero(bytes, before.end..<after.start) else {
                throw damage(after.name, "the gap before it (after \(before.name)) is not zero bytes")
            }
        }
        try verifyPlacement(header)
        try verifySectionShapes()
    }

    /// The order and places the writer gives (FORMAT.md, "What a reader refuses"): sections
    /// in the table in file order, known kinds in the writer's order, each part starting at
    /// the first multiple of 64 after the one before it (so no part is moved and no gap grows
    /// past the alignment), and the trailer right after the table.
    private func verifyPlacement(_ header: FileHeader) throws {
        let bytes = index.file.bytes
        func aligned(_ n: Int) -> Int { (n + IndexFormat.sectionAlignment - 1) / IndexFormat.sectionAlignment * IndexFormat.sectionAlignment }
        var end = IndexFormat.headerSize, rank = -1, previous = "header"
        for i in 0..<header.sectionCount {
            let at = header.sectionTableOffset + i * IndexFormat.sectionEntrySize
            let kind = bytes.readLE(UInt32.self, at: at)!
            let offset = Int(clamping: bytes.readLE(UInt64.self, at: at + 8)!), length = Int(clamping: bytes.readLE(UInt64.self, at: at + 16)!)
            let name = SectionKind(rawValue: kind)?.name ?? "section of kind \(kind)"
            guard offset == aligned(end) else {
                throw damage(name, "starts at \(offset), not at \(aligned(end)) right after \(previous) (table entry \(i)): "
                             + "sections lie in table order, each at the first multiple of 64 after the one before")
            }
            if let r = Self.writerOrder.firstIndex(of: kind) {
                guard r > rank else { throw damage(name, "comes after \(previous), out of the writer's order of sections") }
                rank = r
            }
            end = offset + length
            previous = name
        }
        guard header.sectionTableOffset == aligned(end) else {
            throw damage("section table", "starts at \(header.sectionTableOffset), not at \(aligned(end)) right after \(previous)")
        }
        guard bytes.count - IndexFormat.trailerSize == header.sectionTableOffset + header.sectionCount * IndexFormat.sectionEntrySize else {
            throw damage("trailer", "bytes lie between the section table and the trailer")
        }
    }

    /// Section kinds in the order a compile writes them: numbers, directories with their
    /// pages, labels, ranges, metadata.
    static let writerOrder: [UInt32] = [2, 4, 3, 12, 5, 13, 9, 10, 11, 7, 8, 1]

    /// Zero fields and exact lengths inside the sections.
    private func verifySectionShapes() throws {
        for (set, kind) in [(index.blocked, SectionKind.blockedDirectory), (index.identified, .identifiedDirectory)] {
            let directory = index.sections.bytes(of: kind, in: index.file.bytes)
            guard directory.readLE(UInt32.self, at: 12) == 0 else { throw damage(kind.name, "bytes 12-15 are not zero") }
            guard set.blockCount == 0 || set.entry(0).offset == 0 else { throw damage(set.name, "block 0 does not start at byte 0") }
            guard isZero(set.data, set.dataEnd..<set.data.count) else {
                throw damage(set.name, "the section does not end with its 8 zero bytes")
            }
        }
        for set in [index.blocked, index.identified] where set.blockCount == 0 && set.data.count != IndexFormat.blockDataPadding {
            throw damage(set.name, "holds no numbers in \(set.data.count) bytes, not its 8 zero bytes alone")
        }
        for store in [index.labels.shared, index.labels.stream] where store.count == 0 && store.section.count != LabelStoreLayout.headerSize {
            throw damage(store.name, "holds no labels in \(store.section.count) bytes, not its 16-byte header alone")
        }
        let metadata = index.sections.bytes(of: .metadata, in: index.file.bytes)
        let generatorAt = IndexMetadata.fieldCount * 8 + 4
        let generator = UnsafeRawBufferPointer(rebasing: metadata[min(generatorAt, metadata.count)...])
        guard Int(metadata.readLE(UInt32.self, at: generatorAt - 4) ?? 0) == generator.count else {
            throw damage(SectionKind.metadata.name, "\(generator.count) bytes follow the fields, the generator string's length says otherwise")
        }
        guard generator.count <= 255, LabelRule.isValidUTF8(generator) else {
            throw damage(SectionKind.metadata.name, "the generator string is not UTF-8 of at most 255 bytes")
        }
        let ranges = index.identifiedRanges
        for i in 0..<ranges.count where ranges.section.readLE(UInt32.self, at: i * ranges.stride + 20) != 0 {
            throw damage(SectionKind.identifiedRanges.name, "range \(i): bytes 20-23 are not zero")
        }
        for store in [index.labels.shared, index.labels.stream] where store.blockCount > 0 {
            guard store.blockBytes(0).map({ $0.bytes.baseAddress! - store.section.baseAddress! }) == LabelStoreLayout.headerSize else {
                throw damage(store.name, "block 0 does not start at byte 16")
            }
        }
    }

    /// Block `b` of `set`, decoded from `first` to `last`: its encoding is the one FORMAT.md's
    /// formulas give (`EliasFanoBlockReader.layoutProblem`).
    func verifyBlockLayout(_ set: NumberSetReader, _ block: EliasFanoBlockReader, _ b: Int, last: Int64) throws {
        if let problem = block.layoutProblem(last: last) { throw damage(set.name, "block \(b): \(problem)") }
    }

    private func isZero(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Bool {
        range.isEmpty || bytes[range].allSatisfy { $0 == 0 }
    }
}
