import CallDirReader
import CallDirWriter

/// `calldir diff`: the delta from OLD to NEW, by streaming merges of the two indexes (memory
/// is a block per cursor and the ranges, whatever the sizes), published atomically.
public enum Differ {
    /// Writes the delta from `old` to `new` to `output` (published atomically; labels spill to `temporaryFolder`) and says what it holds.
    public static func diff(old: CallDirIndex, new: CallDirIndex, output: String,
                            temporaryFolder: String) throws -> DeltaSummary {
        try diff(old: old, new: new, output: output, temporaryFolder: temporaryFolder, known: nil)
    }

    /// Exact blocked numbers OLD -> NEW a caller already has as sorted change sets (the feed's
    /// publisher composes them from two deltas): each calls its body once per number, ascending.
    package struct KnownChanges {
        package var removed: ((Int64) throws -> Void) throws -> Void
        package var added: ((Int64) throws -> Void) throws -> Void
        /// Every identified number whose presence or label may differ OLD -> NEW, once each,
        /// ascending (any other is known the same): only these are looked up in both indexes,
        /// instead of a merge of all their identified numbers (`NumberMerge.forEachChange(among:)`).
        package var identifiedTouched: (((Int64) throws -> Void) throws -> Void)?
        package init(removed: @escaping ((Int64) throws -> Void) throws -> Void, added: @escaping ((Int64) throws -> Void) throws -> Void,
                     identifiedTouched: (((Int64) throws -> Void) throws -> Void)? = nil) {
            (self.removed, self.added, self.identifiedTouched) = (removed, added, identifiedTouched)
        }
    }

    /// With `known`, the blocked sections come from it instead of a merge of the indexes (and
    /// its `identifiedTouched` the merge of the identified numbers); everything else (and so every byte, for
    /// the same change sets) is as `diff` writes it.
    package static func diff(old: CallDirIndex, new: CallDirIndex, output: String, temporaryFolder: String,
                             known: KnownChanges?) throws -> DeltaSummary {
        // Patch rebuilds NEW as this calldir compiles; an older format's bytes it cannot match.
        let current = "\(IndexFormat.majorVersion).\(IndexFormat.minorVersion)"
        guard new.formatVersion == current else {
            throw CallDirError(.unsupportedVersion, "NEW is in index format \(new.formatVersion) and patch writes \(current): "
                               + "recompile NEW with this calldir, then diff", path: new.path)
        }
        let started = monotonicSeconds()
        let writer = try IndexWriter(destination: output)
        do {
            var extra: [UInt8] = []
            extra.appendLE(old.checksum)
            extra.appendLE(new.checksum)
            extra.appendLE(UInt64(old.file.bytes.count))
            extra.appendLE(UInt64(new.file.bytes.count))
            writer.headerTemplate = FileHeader(magic: DeltaFile.magic, major: DeltaFile.majorVersion, minor: DeltaFile.minorVersion,
                                               sectionCount: 0, fileSize: 0, sectionTableOffset: 0, sectionTableCRC: 0, extra: extra)
            var summary = DeltaSummary(path: output, oldChecksum: old.checksum, newChecksum: new.checksum)
            let labels = LabelCollector(temporaryFolder: temporaryFolder, sharedLimit: 0)
            // One section at a time: removals in one pass, additions in another.
            summary.removedBlocked = try writeSet(.removedBlockedNumbers, .removedBlockedDirectory, writer: writer) { encoder in
                if let known { return try known.removed { try encoder.append($0) } }
                try NumberMerge.forEachChange(old: old, new: new, identified: false) { change in
                    if case .removed(let n) = change { try encoder.append(n) }
                }
            }
            summary.addedBlocked = try writeSet(.addedBlockedNumbers, .addedBlockedDirectory, writer: writer) { encoder in
                if let known { return try known.added { try encoder.append($0) } }
                try NumberMerge.forEachChange(old: old, new: new, identified: false) { change in
                    if case .added(let n, _) = change { try encoder.append(n) }
                }
            }
            func identifiedChanges(_ body: (NumberMerge.Change) throws -> Void) throws {
                guard let touched = known?.identifiedTouched else {
                    return try NumberMerge.forEachChange(old: old, new: new, identified: true, body)
                }
                try NumberMerge.forEachChange(old: old, new: new, among: touched, body)
            }
            summary.removedIdentified = try writeSet(.removedIdentifiedNumbers, .removedIdentifiedDirectory, writer: writer) { encoder in
                try identifiedChanges { change in
                    if case .removed(let n) = change { try encoder.append(n) }
                }
            }
            summary.addedIdentified = try writeSet(.addedIdentifiedNumbers, .addedIdentifiedDirectory, withLabels: true,
                                                   writer: writer) { encoder in
                try identifiedChanges { change in
                    if case .added(let n, let label) = change { try encoder.append(n, label: labels.ref(for: label!)) }
                }
            }
            try writeRanges(old: old, new: new, labels: labels, writer: writer, summary: &summary)
            try writer.beginSection(.deltaMetadata)
            try writer.write(new.metadata.encoded())
            try writer.endSection()
            let (size, crc) = try writer.finish()
            try writer.commit()
            summary.bytes = size
            summary.checksum = crc
            summary.seconds = monotonicSeconds() - started
            return summary
        } catch {
            writer.discard()
            throw error
        }
    }

    private static func writeSet(_ kind: SectionKind, _ directory: SectionKind, withLabels: Bool = false, writer: IndexWriter,
                                 _ fill: (inout NumberSetEncoder) throws -> Void) throws -> Int {
        var encoder = try NumberSetEncoder(writer: writer, kind: kind, withLabels: withLabels)
        try fill(&encoder)
        try encoder.finish()
        try encoder.writeDirectory(kind: directory, pages: nil)
        return encoder.count
    }

    /// Range records of OLD not in NEW and of NEW not in OLD, per kind (a label change is both).
    private static func writeRanges(old: CallDirIndex, new: CallDirIndex, labels: LabelCollector, writer: IndexWriter,
                                    summary: inout DeltaSummary) throws {
        let (oldBlocked, newBlocked) = (Set(old.blockedRangeList), Set(new.blockedRangeList))
        let removedBlocked = old.blockedRangeList.filter { !newBlocked.contains($0) }
        let addedBlocked = new.blockedRangeList.filter { !oldBlocked.contains($0) }
        let oldIdentified = try old.checkedIdentifiedRanges()
        let newIdentified = try new.checkedIdentifiedRanges()
        let (oldSet, newSet) = (Set(oldIdentified.map { "\($0.range.first)-\($0.range.last) \($0.label)" }),
                                Set(newIdentified.map { "\($0.range.first)-\($0.range.last) \($0.label)" }))
        let removedIdentified = oldIdentified.filter { !newSet.contains("\($0.range.first)-\($0.range.last) \($0.label)") }
        let addedIdentified = newIdentified.filter { !oldSet.contains("\($0.range.first)-\($0.range.last) \($0.label)") }
        let addedIDs = addedIdentified.map { labels.sharedID(forRange: $0.label) }
        _ = try labels.writeSections(to: writer)
        try IndexFinisher.writeRanges(removedBlocked, kind: .removedBlockedRanges, to: writer)
        try IndexFinisher.writeRanges(addedBlocked, kind: .addedBlockedRanges, to: writer)
        try IndexFinisher.writeRanges(removedIdentified.map { $0.range }, kind: .removedIdentifiedRanges, to: writer)
        try IndexFinisher.writeRanges(Array(zip(addedIdentified.map { $0.range }, addedIDs)), kind: .addedIdentifiedRanges, to: writer)
        summary.removedRanges = removedBlocked.count + removedIdentified.count
        summary.addedRanges = addedBlocked.count + addedIdentified.count
    }
}

/// What a diff wrote (and what `inspect` shows of a delta).
public struct DeltaSummary: Sendable {
    /// Where the delta was written.
    public var path: String
    /// The checksum of the index it applies to.
    public var oldChecksum: UInt32
    /// The checksum of the index it rebuilds.
    public var newChecksum: UInt32
    /// Blocked numbers removed.
    public var removedBlocked = 0
    /// Blocked numbers added.
    public var addedBlocked = 0
    /// Identified numbers removed.
    public var removedIdentified = 0
    /// Identified numbers added.
    public var addedIdentified = 0
    /// Ranges removed, both kinds.
    public var removedRanges = 0
    /// Ranges added, both kinds.
    public var addedRanges = 0
    /// The delta file's size.
    public var bytes = 0
    /// The delta file's own whole-file checksum.
    public var checksum: UInt32 = 0
    /// How long the diff took.
    public var seconds = 0.0

    /// Numbers added or removed, both kinds (ranges not included).
    public var changedEntries: Int { removedBlocked + addedBlocked + removedIdentified + addedIdentified }
}
