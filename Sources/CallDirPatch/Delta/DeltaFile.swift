import CallDirNumbers
import CallDirReader

/// A delta file (FORMAT.md, "Delta file"): what changed from one index (OLD) to another
/// (NEW), per kind: numbers removed and added, ranges removed and added, the labels of what
/// was added, and NEW's metadata. Opened like an index: the header, section table and small
/// sections are checked at open (every offset and count range-checked, never trusted), the
/// number blocks and label blocks by CRC as they are read; `verify: true` checks everything.
public final class DeltaFile {
    /// The first 8 bytes of every delta (FORMAT.md, "Delta").
    public static let magic: [UInt8] = [0x43, 0x41, 0x4C, 0x4C, 0x44, 0x4C, 0x54, 0x1A]  // "CALLDLT", 0x1A
    /// The format version this code writes and reads (a higher major is refused).
    public static let majorVersion: UInt16 = 2
    /// The minor version this code writes (a higher minor is read).
    public static let minorVersion: UInt16 = 0

    /// The delta's path.
    public let path: String
    /// The mapped file.
    public let file: MappedFile
    /// The indexes it connects: their checksums (trailer CRCs) and sizes.
    /// OLD's checksum.
    public let oldChecksum: UInt32
    /// NEW's checksum.
    public let newChecksum: UInt32
    /// OLD's size in bytes.
    public let oldSize: Int
    /// NEW's size in bytes.
    public let newSize: Int
    /// The whole-file CRC of the delta itself.
    public let checksum: UInt32
    /// NEW's metadata (its build time and generator are what a patch writes).
    public let newMetadata: IndexMetadata
    package let sections: SectionMap
    package let removedBlocked: NumberSetReader
    package let addedBlocked: NumberSetReader
    package let removedIdentified: NumberSetReader
    package let addedIdentified: NumberSetReader
    package let labels: LabelReader
    package let removedBlockedRanges: RangeTableReader
    package let addedBlockedRanges: RangeTableReader
    package let removedIdentifiedRanges: RangeTableReader
    package let addedIdentifiedRanges: RangeTableReader
    package let isVerified: Bool

    /// True when the file starts with a delta's magic (for `inspect` and `verify`).
    public static func looksLikeDelta(_ file: MappedFile) -> Bool {
        file.bytes.count >= 8 && file.bytes.prefix(8).elementsEqual(magic)
    }

    /// Opens the delta at `path`; with `verify`, checks every section's checksum too.
    public convenience init(path: String, verify: Bool = false) throws {
        try self.init(file: MappedFile(path: path), verify: verify)
    }

    /// Reads a mapped delta; with `verify`, checks every section's checksum too.
    public init(file: MappedFile, verify: Bool = false) throws {
        let path = file.path
        let bytes = file.bytes
        self.path = path
        self.file = file
        let header = try FileHeader.decode(bytes, magic: Self.magic, what: "calldir delta", path: path) { major in
            guard major == Self.majorVersion else {
                throw CallDirError(.unsupportedVersion, "delta format version \(major) is not supported (this calldir reads "
                                   + "version \(Self.majorVersion)); diff the two indexes again", path: path)
            }
        }
        let table = try SectionTable.read(bytes, header: header, required: SectionKind.deltaKinds, path: path)
        sections = table
        (oldChecksum, newChecksum) = header.extra.withUnsafeBytes { ($0.readLE(UInt32.self, at: 0)!, $0.readLE(UInt32.self, at: 4)!) }
        (oldSize, newSize) = header.extra.withUnsafeBytes {
            (Int(clamping: $0.readLE(UInt64.self, at: 8)!), Int(clamping: $0.readLE(UInt64.self, at: 16)!))
        }
        checksum = bytes.readLE(UInt32.self, at: bytes.count - IndexFormat.trailerSize)!
        func section(_ kind: SectionKind) -> UnsafeRawBufferPointer { table.bytes(of: kind, in: bytes) }
        for kind in [SectionKind.deltaMetadata, .removedBlockedDirectory, .addedBlockedDirectory, .removedIdentifiedDirectory,
                     .addedIdentifiedDirectory, .labelSymbols, .removedBlockedRanges, .addedBlockedRanges,
                     .removedIdentifiedRanges, .addedIdentifiedRanges] {
            try SectionTable.checkCRC(table[kind]!, bytes: bytes, path: path)
        }
        newMetadata = try IndexMetadata(decoding: section(.deltaMetadata), path: path)
        func set(_ data: SectionKind, _ directory: SectionKind, identified: Bool) throws -> NumberSetReader {
            try NumberSetReader(data: section(data), directorySection: section(directory), name: data.name,
                                identified: identified, path: path)
        }
        removedBlocked = try set(.removedBlockedNumbers, .removedBlockedDirectory, identified: false)
        addedBlocked = try set(.addedBlockedNumbers, .addedBlockedDirectory, identified: false)
        removedIdentified = try set(.removedIdentifiedNumbers, .removedIdentifiedDirectory, identified: false)
        addedIdentified = try set(.addedIdentifiedNumbers, .addedIdentifiedDirectory, identified: true)
        let labels = LabelReader(symbols: try LabelSymbols(section: section(.labelSymbols), path: path),
                                 shared: try LabelStoreReader(section(.sharedLabels), name: SectionKind.sharedLabels.name, path: path),
                                 stream: try LabelStoreReader(section(.streamLabels), name: SectionKind.streamLabels.name, path: path))
        self.labels = labels
        guard labels.stream.count == addedIdentified.count else {
            throw CallDirError(.corruptIndex, "delta: \(addedIdentified.count) added identification numbers but "
                               + "\(labels.stream.count) labels", path: path)
        }
        let sharedCount = labels.sharedCount
        func ranges(_ kind: SectionKind, labelled: Bool) throws -> RangeTableReader {
            try RangeTableReader(section(kind), withLabels: labelled, name: kind.name, labelCount: sharedCount, path: path)
        }
        removedBlockedRanges = try ranges(.removedBlockedRanges, labelled: false)
        addedBlockedRanges = try ranges(.addedBlockedRanges, labelled: false)
        removedIdentifiedRanges = try ranges(.removedIdentifiedRanges, labelled: false)
        addedIdentifiedRanges = try ranges(.addedIdentifiedRanges, labelled: true)
        isVerified = verify
        if verify {
            try DeltaVerifier(delta: self).verifyAll()
            file.release(0..<file.bytes.count)  // read whole: a patch that follows maps in only what it reads, as it goes
        }
    }

    /// Blocked numbers it removes.
    public var removedBlockedCount: Int { removedBlocked.count }
    /// Blocked numbers it adds.
    public var addedBlockedCount: Int { addedBlocked.count }
    /// Identified numbers it removes.
    public var removedIdentifiedCount: Int { removedIdentified.count }
    /// Identified numbers it adds.
    public var addedIdentifiedCount: Int { addedIdentified.count }
    /// Ranges it removes, both kinds.
    public var removedRangeCount: Int { removedBlockedRanges.count + removedIdentifiedRanges.count }
    /// Ranges it adds, both kinds.
    public var addedRangeCount: Int { addedBlockedRanges.count + addedIdentifiedRanges.count }

    package func cursor(_ set: NumberSetReader, releasingPages: Bool = false) -> NumberCursor {
        NumberCursor(set, path: path, checkBlocks: !isVerified, releasingPagesOf: releasingPages ? file : nil)
    }

    /// The exact blocked numbers the delta removes (or adds), ascending (the feed's publisher composes deltas).
    package func blockedCursor(removed: Bool) -> NumberCursor { cursor(removed ? removedBlocked : addedBlocked) }

    /// The identified numbers the delta removes (or adds: new numbers and new labels), ascending.
    package func identifiedCursor(removed: Bool) -> NumberCursor { cursor(removed ? removedIdentified : addedIdentified) }

    package func label(_ ref: UInt32, into text: inout [UInt8]) throws {
        try labels.bytes(of: ref, check: !isVerified, path: path, into: &text)
    }

    /// Range records as numbers (and the label texts of added identification ranges).
    package func rangeList(_ table: RangeTableReader) -> [NumberRange] {
        (0..<table.count).map { let r = table.range($0); return NumberRange(first: r.first, last: r.last) }
    }

    /// What the delta holds (what `inspect` shows, what a patch returns).
    public var summary: DeltaSummary {
        var s = DeltaSummary(path: path, oldChecksum: oldChecksum, newChecksum: newChecksum)
        s.removedBlocked = removedBlockedCount
        s.addedBlocked = addedBlockedCount
        s.removedIdentified = removedIdentifiedCount
        s.addedIdentified = addedIdentifiedCount
        s.removedRanges = removedRangeCount
        s.addedRanges = addedRangeCount
        s.bytes = file.bytes.count
        s.checksum = checksum
        return s
    }

    /// Section name, offset and length, in file order (for `inspect`).
    public var sectionLayout: [(name: String, offset: Int, length: Int)] {
        sections.inFileOrder.map { ($0.kind.name, $0.offset, $0.length) }
    }
}
