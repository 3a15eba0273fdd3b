/// A compiled index, memory-mapped and read in place. Opening checks the header, the section
/// table and the small sections (label symbols, ranges, metadata, the directories' page
/// tables) against their CRCs; directories are checked page by page and the numbers and label
/// sections block by block as lookups touch them, unless the index was opened with
/// `verify: true`, which checks every byte once (as the daemon does). Opening therefore costs
/// about the same whatever the size of the index.
public final class CallDirIndex: @unchecked Sendable {  // immutable after init
    /// The index's path.
    public let path: String
    /// The mapped file.
    public let file: MappedFile
    /// What the index records about its build (counts, generator, build time).
    public let metadata: IndexMetadata
    /// CRC-32 of the whole file (from the trailer): the index's identity.
    public let checksum: UInt32
    /// True when every checksum and invariant was verified at open.
    public let isVerified: Bool
    /// The file's format version, "MAJOR.MINOR" (a 2.0 file reads without directory pages);
    /// made when asked: a one-shot lookup does not format integers.
    public var formatVersion: String { "\(version.major).\(version.minor)" }
    private let version: (major: UInt16, minor: UInt16)
    package let sections: SectionMap
    package let blocked: NumberSetReader
    package let identified: NumberSetReader
    package let labels: LabelReader
    package let blockedRanges: RangeTableReader
    package let identifiedRanges: RangeTableReader

    /// Opens the index at `path`: checks its header, section table and trailer (constant time); with `verify`, every checksum too. Throws `CallDirError` (`.corruptIndex`, `.unsupportedVersion`, `.io`).
    public convenience init(path: String, verify: Bool = false) throws {
        try self.init(file: MappedFile(path: path), verify: verify)
    }

    /// Opens a mapped index, checked as `init(path:verify:)` does.
    public init(file: MappedFile, verify: Bool = false) throws {
        let path = file.path
        let bytes = file.bytes
        self.path = path
        self.file = file
        let header = try FileHeader.decode(bytes, path: path)
        version = (header.major, header.minor)
        let table = try SectionTable.read(bytes, header: header, path: path)
        sections = table
        checksum = bytes.readLE(UInt32.self, at: bytes.count - IndexFormat.trailerSize)!
        func section(_ kind: SectionKind) -> UnsafeRawBufferPointer { table.bytes(of: kind, in: bytes) }
        // Small sections are checked whole. Directories with a page table (2.1) only page by
        // page as lookups need them, and the label stores (which grow with the labels) only by
        // header here and block by block as labels are read.
        let pageKinds = [SectionKind.blockedDirectoryPages, .identifiedDirectoryPages]
        let paged = pageKinds.allSatisfy { table[$0] != nil }
        let directories = paged ? pageKinds : [.blockedDirectory, .identifiedDirectory]
        for kind in [SectionKind.metadata, .labelSymbols, .blockedRanges, .identifiedRanges] + directories {
            try SectionTable.checkCRC(table[kind]!, bytes: bytes, path: path)
        }
        metadata = try IndexMetadata(decoding: section(.metadata), path: path)
        let perStep = header.major >= 3 ? LabelStoreLayout.labelsPerStep : 0  // format 2: no step tables
        labels = LabelReader(symbols: try LabelSymbols(section: section(.labelSymbols), path: path),
                             shared: try LabelStoreReader(section(.sharedLabels), name: SectionKind.sharedLabels.name,
                                                          labelsPerStep: perStep, path: path),
                             stream: try LabelStoreReader(section(.streamLabels), name: SectionKind.streamLabels.name,
                                                          labelsPerStep: perStep, path: path))
        // The stores' counts are not covered by a CRC checked at open; metadata's are.
        guard labels.shared.count == metadata.sharedLabels, labels.stream.count == metadata.streamLabels else {
            throw CallDirError(.corruptIndex, "label stores hold \(labels.shared.count) shared and \(labels.stream.count) "
                               + "stream labels, metadata says \(metadata.sharedLabels) and \(metadata.streamLabels)", path: path)
        }
        blocked = try NumberSetReader(data: section(.blockedNumbers), directorySection: section(.blockedDirectory),
                                      pagesSection: paged ? section(.blockedDirectoryPages) : nil,
                                      name: SectionKind.blockedNumbers.name, identified: false, path: path)
        identified = try NumberSetReader(data: section(.identifiedNumbers), directorySection: section(.identifiedDirectory),
                                         pagesSection: paged ? section(.identifiedDirectoryPages) : nil,
                                         name: SectionKind.identifiedNumbers.name, identified: true,
                                         labelCounts: (labels.shared.count, labels.stream.count), path: path)
        blockedRanges = try RangeTableReader(section(.blockedRanges), withLabels: false, name: SectionKind.blockedRanges.name,
                                             labelCount: 0, path: path)
        identifiedRanges = try RangeTableReader(section(.identifiedRanges), withLabels: true, name: SectionKind.identifiedRanges.name,
                                                labelCount: labels.sharedCount, path: path)
        isVerified = verify
        try IndexVerifier(index: self).checkCountsAgainstSections()  // O(1): every open, not only verify's
        if verify { try IndexVerifier(index: self).verifyAll() }
    }

    /// Blocking entries stored one by one (ranges not counted).
    public var blockedCount: Int { blocked.count }
    /// Identification entries stored one by one.
    public var identifiedCount: Int { identified.count }
    /// Labels stored: shared ones plus one per entry that uses a stream label (a text may be
    /// stored more than once: a compile deduplicates in bounded memory, where it pays).
    public var labelCount: Int { labels.shared.count + labels.stream.count }
    /// Blocking ranges.
    public var blockedRangeCount: Int { blockedRanges.count }
    /// Identification ranges.
    public var identifiedRangeCount: Int { identifiedRanges.count }

    /// Classifies `number`. Throws only when the part of the file it needs is damaged.
    /// (Batch lookups: CallDirIndex+Batch.swift.)
    public func lookup(_ number: Int64) throws -> LookupResult {
        let check = !isVerified
        let exact = try blocked.find(number, checkBlock: check, path: path) != nil
        var result = LookupResult(number: number)
        try answer(number, blockedExactly: exact, ref: try identified.find(number, checkBlock: check, path: path)) {
            result = $0.result
        }
        return result
    }

    /// Section name, offset and length, in file order (for `inspect`).
    public var sectionLayout: [(name: String, offset: Int, length: Int)] {
        sections.inFileOrder.map { ($0.kind.name, $0.offset, $0.length) }
    }

    /// The text of a label ref (package use: device feed, exports).
    package func label(_ ref: UInt32) throws -> String { try labels.label(ref, check: !isVerified, path: path) }

    /// Every distinct label text, in order of first storage (shared labels, then stream labels).
    /// Labels are compared as bytes, as everywhere in the format: Swift's String equality is
    /// canonical equivalence, so "é" (U+00E9) and "e" + U+0301 would otherwise be one label.
    /// Reads every label block: for exports and tests, not for lookups.
    public func distinctLabels() throws -> [String] {
        var seen = Set<[UInt8]>()
        var out: [String] = []
        for ref in (0..<labels.shared.count).map({ UInt32($0) }) + (0..<labels.stream.count).map({ LabelRef.stream($0) }) {
            let text = try label(ref)
            if seen.insert(Array(text.utf8)).inserted { out.append(text) }
        }
        return out
    }
}

/// Reads and checks the section table.
package enum SectionTable {
    package static func read(_ bytes: UnsafeRawBufferPointer, header: FileHeader, required: [SectionKind] = SectionKind.indexKinds,
                             path: String) throws -> SectionMap {
        func damage(_ message: String, _ offset: Int? = nil) -> CallDirError {
            CallDirError(.corruptIndex, message, path: path, offset: offset)
        }
        let trailerStart = bytes.count - IndexFormat.trailerSize
        guard trailerStart >= IndexFormat.headerSize,
              bytes[(trailerStart + 8)...].elementsEqual(IndexFormat.trailerMagic),
              bytes.readLE(UInt32.self, at: trailerStart + 4) == 0 else {
            throw damage("trailer missing: the file is truncated or was not completely written", trailerStart)
        }
        // Every bound is compared by subtraction from a checked smaller value: offsets come
        // from the file and may be anything up to UInt64.max (clamped to Int.max), so a sum
        // could overflow and trap.
        let tableLength = header.sectionCount * IndexFormat.sectionEntrySize
        guard header.sectionCount <= 1024, header.sectionTableOffset >= IndexFormat.headerSize,
              tableLength <= trailerStart, header.sectionTableOffset <= trailerStart - tableLength else {
            throw damage("section table out of bounds", header.sectionTableOffset)
        }
        let table = UnsafeRawBufferPointer(rebasing: bytes[header.sectionTableOffset..<(header.sectionTableOffset + tableLength)])
        guard Checksum.crc32(table) == header.sectionTableCRC else {
            throw damage("section table checksum mismatch", header.sectionTableOffset)
        }
        var sections = SectionMap()
        for i in 0..<header.sectionCount {
            let at = i * IndexFormat.sectionEntrySize
            let rawKind = table.readLE(UInt32.self, at: at)!
            let offset = Int(clamping: table.readLE(UInt64.self, at: at + 8)!)
            let length = Int(clamping: table.readLE(UInt64.self, at: at + 16)!)
            guard offset >= IndexFormat.headerSize, offset % IndexFormat.sectionAlignment == 0,
                  length <= header.sectionTableOffset, offset <= header.sectionTableOffset - length else {
                throw damage("section \(i) lies outside the file", header.sectionTableOffset + at)
            }
            guard let kind = SectionKind(rawValue: rawKind) else { continue }  // newer minor version
            guard sections[kind] == nil else { throw damage("section \(kind.name) appears twice") }
            sections[kind] = SectionEntry(kind: kind, offset: offset, length: length, crc: table.readLE(UInt32.self, at: at + 24)!)
        }
        if let kind = required.first(where: { sections[$0] == nil }) { throw damage("section \(kind.name) is missing") }
        return sections
    }

    /// Every section's CRC, then the trailer's whole-file CRC (`verify` of an index or a delta).
    /// With `releasing` (the mapping `bytes` come from), each stretch is dropped from resident
    /// memory once summed, so checking a large file costs a few MiB, not its size (a phone's
    /// installer, `calldir update`).
    package static func checkAllCRCs(_ sections: SectionMap, bytes: UnsafeRawBufferPointer, checksum: UInt32,
                                     path: String, releasing file: MappedFile? = nil) throws {
        for entry in sections.inFileOrder { try checkCRC(entry, bytes: bytes, path: path, releasing: file) }
        let actual = crc32(bytes, 0..<(bytes.count - IndexFormat.trailerSize), releasing: file)
        guard actual == checksum else {
            throw CallDirError(.corruptIndex, "trailer: whole-file checksum mismatch (expected \(hex(checksum)), got \(hex(actual)))",
                               path: path)
        }
    }

    package static func checkCRC(_ entry: SectionEntry, bytes: UnsafeRawBufferPointer, path: String,
                                 releasing file: MappedFile? = nil) throws {
        let actual = crc32(bytes, entry.offset..<(entry.offset + entry.length), releasing: file)
        guard actual == entry.crc else {
            throw CallDirError(.corruptIndex,
                               "section \(entry.kind.name) checksum mismatch (expected \(hex(entry.crc)), got \(hex(actual)))",
                               path: path, offset: entry.offset)
        }
    }

    /// The CRC-32 of `bytes[range]`, 4 MiB at a time, each piece released after it is summed
    /// when `file` is given.
    private static func crc32(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, releasing file: MappedFile?) -> UInt32 {
        guard let file else { return Checksum.crc32(UnsafeRawBufferPointer(rebasing: bytes[range])) }
        let piece = 4 << 20
        var crc: UInt32 = 0
        var start = range.lowerBound
        while start < range.upperBound {
            let end = min(start + piece, range.upperBound)
            crc = Checksum.crc32(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), continuing: crc)
            file.release(start..<end)
            start = end
        }
        return crc
    }
}

/// The sections of an index by kind. A fixed array indexed by kind, not a dictionary:
/// building a `[SectionKind: SectionEntry]` made the Swift runtime look up `Hashable` among
/// every conformance in the binary, ~400,000 instructions of a one-shot lookup's 1.8 million.
/// Nor an `[SectionEntry?]`: the runtime built the metadata of `Optional<SectionEntry>` and of
/// its array's storage from their mangled names, 35,000 instructions of a one-shot lookup's
/// 394,000 (issue 46); a non-generic class holds the entries.
package struct SectionMap {
    private final class Storage {
        let entries = UnsafeMutablePointer<SectionEntry>.allocate(capacity: 64)  // a trivial type: set entries are initialized over
        var present: UInt64 = 0  // bit k: entries[k] is set

        func copy() -> Storage {
            let copy = Storage()
            copy.entries.initialize(from: entries, count: 64)
            copy.present = present
            return copy
        }

        deinit { entries.deallocate() }
    }

    private var storage = Storage()

    package subscript(kind: SectionKind) -> SectionEntry? {
        get {
            let k = Int(kind.rawValue)
            return storage.present >> UInt64(k) & 1 != 0 ? storage.entries[k] : nil
        }
        set {
            let k = Int(kind.rawValue)
            if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
            if let newValue { (storage.entries + k).initialize(to: newValue); storage.present |= 1 << UInt64(k) } else { storage.present &= ~(1 << UInt64(k)) }
        }
    }

    /// The bytes of a section `SectionTable.read` found (every required kind is present).
    package func bytes(of kind: SectionKind, in file: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let s = self[kind]!
        return UnsafeRawBufferPointer(rebasing: file[s.offset..<(s.offset + s.length)])
    }

    package var inFileOrder: [SectionEntry] {
        SectionKind.allCases.compactMap { self[$0] }.sorted { ($0.offset, $0.length) < ($1.offset, $1.length) }
    }
}
