import CallDirNumbers
import CallDirReader
import CallDirWriter

/// Which delta walker: `Patcher.merge` (below) is one of three, each at its own level. It works
/// at the **stored-number level**, applying a delta file's removals and additions to OLD's
/// exact numbers of one kind to rebuild NEW's. `NumberMerge` works at the same level in the
/// other direction (two indexes in, changes out, for `Differ`). `DeviceDeltaStream`
/// (CallDirReader, Extension/) works at the **device-entry level** (exact numbers and expanded
/// ranges, as CallKit holds them), for an extension's update and `diff --report`.
///
/// `calldir patch`: rebuilds NEW from OLD and a delta, byte for byte. OLD's entries stream
/// through the delta's removals and additions into the same encoder a compile uses, so the
/// result is NEW exactly when the delta connects these files; the result's checksum must be
/// the one the delta names, or nothing is published.
public enum Patcher {
    /// `temporaryFolder`: where labels spill while the result is written (a nameless file);
    /// the caller names it (an app: its App Group container; the CLI: --tmpdir).
    public static func patch(old: CallDirIndex, delta: DeltaFile, output: String,
                             temporaryFolder: String) throws -> DeltaSummary {
        let started = monotonicSeconds()
        guard old.checksum == delta.oldChecksum, old.file.bytes.count == delta.oldSize else {
            throw CallDirError(.deltaMismatch, "this delta applies to the index with checksum \(hex(delta.oldChecksum)) "
                               + "(\(delta.oldSize) bytes); \(old.path) is \(hex(old.checksum)) (\(old.file.bytes.count) bytes)",
                               path: delta.path)
        }
        // A small write buffer: a phone's (and `calldir update`'s) resident memory peaks while the result is written.
        let writer = try IndexWriter(destination: output, bufferBytes: LabelStoreWriter.copyChunk)
        defer { dropPages(old, delta) }
        do {
            let labels = LabelCollector(temporaryFolder: temporaryFolder)
            var blocked = try NumberSetEncoder(writer: writer, kind: .blockedNumbers, withLabels: false)
            try merge(old: old, delta: delta, identified: false) { n, _ in try blocked.append(n) }
            try blocked.finish()
            var identified = try NumberSetEncoder(writer: writer, kind: .identifiedNumbers, withLabels: true)
            try merge(old: old, delta: delta, identified: true) { n, label in try identified.append(n, label: labels.ref(for: label!)) }
            try identified.finish()
            dropPages(old, delta)  // OLD's label blocks, before the new labels are written (the peak)
            try blocked.writeDirectory(kind: .blockedDirectory, pages: .blockedDirectoryPages)
            try identified.writeDirectory(kind: .identifiedDirectory, pages: .identifiedDirectoryPages)
            let blockSegments = try patchedRanges(old.blockedRangeList, removed: delta.rangeList(delta.removedBlockedRanges),
                                                  added: delta.rangeList(delta.addedBlockedRanges), path: delta.path)
            let identifySegments = try patchedIdentifiedRanges(old: old, delta: delta)
            let finisher = IndexFinisher(writer: writer, labels: labels)
            var metadata = try finisher.metadata(blocked: blocked, identified: identified, blockSegments: blockSegments,
                                                 identifySegments: identifySegments.map(\.range))
            metadata.buildTime = delta.newMetadata.buildTime
            metadata.generator = delta.newMetadata.generator
            let rangeLabelIDs = identifySegments.map { labels.sharedID(forRange: $0.label) }
            metadata = try finisher.writeTables(metadata, blockSegments: blockSegments,
                                                identifySegments: Array(zip(identifySegments.map(\.range), rangeLabelIDs)))
            let (size, crc) = try writer.finish()
            guard crc == delta.newChecksum, size == delta.newSize else {
                throw CallDirError(.deltaMismatch, "patching gave an index with checksum \(hex(crc)) (\(size) bytes), the delta "
                                   + "names \(hex(delta.newChecksum)) (\(delta.newSize) bytes): NEW was written by another "
                                   + "calldir version or the delta is damaged; nothing written", path: output)
            }
            try writer.commit()
            var summary = delta.summary
            summary.path = output
            summary.bytes = size
            summary.checksum = crc
            summary.seconds = monotonicSeconds() - started
            return summary
        } catch {
            writer.discard()
            throw error
        }
    }

    /// Drops what the patch read of OLD and the delta beyond their number blocks (which the
    /// cursors drop as they go) from resident memory: label blocks, directories, ranges (1M
    /// labels: several MiB). A caller that verifies the result next (`calldir update`) does
    /// not hold them too; a later read maps them in again.
    private static func dropPages(_ old: CallDirIndex, _ delta: DeltaFile) {
        old.file.release(0..<old.file.bytes.count)
        delta.file.release(0..<delta.file.bytes.count)
    }

    /// OLD's numbers of one kind without the delta's removals, with its additions, ascending.
    /// A removal OLD does not hold, or an addition it still holds, means the delta does not fit.
    private static func merge(old: CallDirIndex, delta: DeltaFile, identified: Bool,
                              _ body: (Int64, UnsafeRawBufferPointer?) throws -> Void) throws {
        // Pages of OLD and the delta are dropped once read: on a phone, resident memory stays a
        // few blocks whatever the sizes (the file stays in the page cache; a later read maps it in again).
        var base = NumberCursor(identified ? old.identified : old.blocked, path: old.path, checkBlocks: !old.isVerified,
                                releasingPagesOf: old.file)
        var removed = delta.cursor(identified ? delta.removedIdentified : delta.removedBlocked, releasingPages: true)
        var added = delta.cursor(identified ? delta.addedIdentified : delta.addedBlocked, releasingPages: true)
        var oldText = NumberMerge.LabelText(index: old)
        var addedText: [UInt8] = []
        func misfit(_ what: String, _ n: Int64) -> CallDirError {
            CallDirError(.deltaMismatch, "the delta \(what) \(n); it does not fit \(old.path)", path: delta.path)
        }
        var x = try base.next(), r = try removed.next(), a = try added.next()
        while x != nil || a != nil {
            if let p = x, r == nil || r! >= p, a == nil || a! > p || (a! == p && r == p) {
                if r == p {  // removed (and maybe added back, with another label)
                    r = try removed.next()
                } else if identified {
                    try oldText.withText(base.labelID) { try body(p, $0) }
                } else {
                    try body(p, nil)
                }
                x = try base.next()
                continue
            }
            if let q = r, x == nil || q < x! { throw misfit("removes", q) }
            guard let q = a else { break }
            if let p = x, p == q { throw misfit("adds", q) }
            if identified {
                try delta.label(added.labelID, into: &addedText)
                try addedText.withUnsafeBytes { try body(q, $0) }
            } else {
                try body(q, nil)
            }
            a = try added.next()
        }
        if let q = r { throw misfit("removes", q) }
    }

    private static func patchedRanges(_ old: [NumberRange], removed: [NumberRange], added: [NumberRange],
                                      path: String) throws -> [NumberRange] {
        let gone = Set(removed)
        let kept = old.filter { !gone.contains($0) }
        guard kept.count + removed.count == old.count else {
            throw CallDirError(.deltaMismatch, "the delta removes a range the index does not hold", path: path)
        }
        return try checkedDisjoint((kept + added).sorted { $0.first < $1.first }, path: path)
    }

    private static func patchedIdentifiedRanges(old: CallDirIndex, delta: DeltaFile) throws -> [(range: NumberRange, label: String)] {
        let gone = Set(delta.rangeList(delta.removedIdentifiedRanges))
        let oldRanges = try old.checkedIdentifiedRanges()
        let kept = oldRanges.filter { !gone.contains($0.range) }
        guard kept.count + gone.count == oldRanges.count else {
            throw CallDirError(.deltaMismatch, "the delta removes a range the index does not hold", path: delta.path)
        }
        var text: [UInt8] = []
        let added = try (0..<delta.addedIdentifiedRanges.count).map { i -> (range: NumberRange, label: String) in
            let r = delta.addedIdentifiedRanges.range(i)
            try delta.label(r.label, into: &text)
            return (NumberRange(first: r.first, last: r.last), String(decoding: text, as: UTF8.self))
        }
        let all = (kept + added).sorted { $0.range.first < $1.range.first }
        _ = try checkedDisjoint(all.map(\.range), path: delta.path)
        return all
    }

    private static func checkedDisjoint(_ ranges: [NumberRange], path: String) throws -> [NumberRange] {
        for (a, b) in zip(ranges, ranges.dropFirst()) where b.first <= a.last {
            throw CallDirError(.deltaMismatch, "the delta adds a range that overlaps another", path: path)
        }
        return ranges
    }
}
