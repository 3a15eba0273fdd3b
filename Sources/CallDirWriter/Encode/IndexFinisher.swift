import CallDirNumbers
import CallDirReader

/// The closing steps of writing an index, shared by `Compiler` and `Patcher`: after both
/// numbers sections (and their directories) are written, count what the metadata needs from
/// the sections themselves, then write the label sections, ranges and metadata. Everything
/// here depends only on the entries and ranges, so the same content gives the same bytes.
package struct IndexFinisher {
    package let writer: IndexWriter
    package let labels: LabelCollector

    package init(writer: IndexWriter, labels: LabelCollector) {
        self.writer = writer
        self.labels = labels
    }

    /// Counts from the written numbers sections and the ranges: numbers in both kinds, exact
    /// numbers already inside a range (a device loads those once), device entries.
    package func metadata(blocked: NumberSetEncoder, identified: NumberSetEncoder, blockSegments: [NumberRange],
                  identifySegments: [NumberRange]) throws -> IndexMetadata {
        var m = IndexMetadata()
        m.blockedNumbers = blocked.count
        m.identifiedNumbers = identified.count
        m.blockedRanges = blockSegments.count
        m.identifiedRanges = identifySegments.count
        m.blockedRangeNumbers = blockSegments.reduce(0) { $0 + $1.count }
        m.identifiedRangeNumbers = identifySegments.reduce(0) { $0 + $1.count }
        let mapped = try writer.mapWritten()
        func set(_ data: SectionKind, _ directory: SectionKind) throws -> NumberSetReader {
            try NumberSetReader(data: writer.bytes(of: data, in: mapped), directorySection: writer.bytes(of: directory, in: mapped),
                                name: data.name, identified: data == .identifiedNumbers, path: writer.destination)
        }
        let blockedSet = try set(.blockedNumbers, .blockedDirectory)
        let identifiedSet = try set(.identifiedNumbers, .identifiedDirectory)
        // Bytes written here: no block CRCs to check, only the decoding.
        func cursor(_ set: NumberSetReader) -> NumberCursor {
            NumberCursor(set, path: writer.destination, checkBlocks: false, releasingPagesOf: mapped)
        }
        var a = cursor(blockedSet), b = cursor(identifiedSet)
        m.numbersInBoth = try OverlapCounter.common(&a, &b)
        var c = cursor(blockedSet)
        let blockedInside = try OverlapCounter.insideRanges(&c, blockSegments)
        var d = cursor(identifiedSet)
        let identifiedInside = try OverlapCounter.insideRanges(&d, identifySegments)
        m.deviceEntries = Int64(blockedSet.count - blockedInside) + m.blockedRangeNumbers
            + Int64(identifiedSet.count - identifiedInside) + m.identifiedRangeNumbers
        return m
    }

    /// Writes the label sections, ranges and metadata (label counts filled in here).
    /// `identifySegments` carry the shared ids the caller got from `labels.sharedID(forRange:)`
    /// in range order, after every entry's label: the same entries and ranges give the same
    /// bytes whatever the order of the input rows.
    package func writeTables(_ metadata: IndexMetadata, blockSegments: [NumberRange],
                     identifySegments: [(NumberRange, UInt32)]) throws -> IndexMetadata {
        var metadata = metadata
        let (shared, stream) = try labels.writeSections(to: writer)
        metadata.labels = shared + stream
        metadata.sharedLabels = shared
        metadata.streamLabels = stream
        try Self.writeRanges(blockSegments, kind: .blockedRanges, to: writer)
        try Self.writeRanges(identifySegments, kind: .identifiedRanges, to: writer)
        try writer.beginSection(.metadata)
        try writer.write(metadata.encoded())
        try writer.endSection()
        return metadata
    }

    package static func writeRanges(_ ranges: [NumberRange], kind: SectionKind, to writer: IndexWriter) throws {
        var out: [UInt8] = []
        for r in ranges { out.appendLE(r.first); out.appendLE(r.last) }
        try writer.beginSection(kind)
        try writer.write(out)
        try writer.endSection()
    }

    package static func writeRanges(_ ranges: [(NumberRange, UInt32)], kind: SectionKind, to writer: IndexWriter) throws {
        var out: [UInt8] = []
        for (r, label) in ranges { out.appendLE(r.first); out.appendLE(r.last); out.appendLE(label); out.appendLE(UInt32(0)) }
        try writer.beginSection(kind)
        try writer.write(out)
        try writer.endSection()
    }
}
