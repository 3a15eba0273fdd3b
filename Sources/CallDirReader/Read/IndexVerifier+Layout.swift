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
        try verifySectionShapes()
    }

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

    /// Block `b` of `set`, decoded from `first` to `last`: L, W, the high part's length and
    /// bits, and the stream-label map are the ones the values and labels give (FORMAT.md's
    /// formulas), and the bits past each packed part are zero.
    func verifyBlockLayout(_ set: NumberSetReader, _ block: EliasFanoBlockReader, _ b: Int, last: Int64) throws {
        func refuse(_ what: String) -> CallDirError { damage(set.name, "block \(b): \(what)") }
        let m = block.count - 1
        let u = UInt64(last - block.base)
        let lowBits = EliasFanoBlock.lowBits(maxRel: u, m: m)
        guard block.lowBits == lowBits else { throw refuse("L is \(block.lowBits), its values give \(lowBits)") }
        let highBytes = EliasFanoBlock.highByteCount(maxRel: u, lowBits: lowBits, m: m)
        guard block.highBitCount == 8 * highBytes else {
            throw refuse("high part of \(block.highBitCount / 8) bytes, its values give \(highBytes)")
        }
        let bits = block.bytes
        guard onesCount(bits, from: block.highStart, bitCount: block.highBitCount) == m,
              zeroPast(bits, start: block.lowStart, bits: m * lowBits, end: block.highStart) else {
            throw refuse("stray bits in its low or high part")
        }
        guard set.identified else { return }
        let k = block.count, c = block.streamCount
        var idsStart = block.labelStart
        if c > 0, c < k {
            idsStart += (k + 7) / 8
            guard onesCount(bits, from: block.labelStart, bitCount: 8 * ((k + 7) / 8)) == c,
                  zeroPast(bits, start: block.labelStart, bits: k, end: idsStart) else {
                throw refuse("its stream-label map does not mark \(c) entries (its stream-label count)")
            }
        }
        var maxShared: UInt32 = 0
        for i in 0..<block.count where !LabelRef.isStream(block.label(at: i)) { maxShared = max(maxShared, block.label(at: i)) }
        let labelBits = EliasFanoBlock.labelBits(maxShared: maxShared)
        guard block.labelBits == labelBits else { throw refuse("W is \(block.labelBits), its largest shared id needs \(labelBits)") }
        guard c == k || zeroPast(bits, start: idsStart, bits: (k - c) * labelBits, end: bits.count) else {
            throw refuse("stray bits after its shared label ids")
        }
    }

    private func isZero(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Bool {
        range.isEmpty || bytes[range].allSatisfy { $0 == 0 }
    }

    /// Set bits in `bitCount` bits from byte `from` of `bytes`.
    private func onesCount(_ bytes: UnsafeRawBufferPointer, from: Int, bitCount: Int) -> Int {
        bytes[from..<(from + bitCount / 8)].reduce(0) { $0 + $1.nonzeroBitCount }
    }

    /// True when the bits of bytes `start..<end` past the first `bits` are all zero.
    private func zeroPast(_ bytes: UnsafeRawBufferPointer, start: Int, bits: Int, end: Int) -> Bool {
        let full = start + bits / 8
        guard full < end else { return true }
        let partial = bits % 8 == 0 ? bytes[full] : bytes[full] >> UInt8(bits % 8)
        return partial == 0 && isZero(bytes, (full + 1)..<end)
    }
}
