import CallDirReader

/// The compile's closing steps: read-back statistics, the device budget, the small sections.
extension Compiler {
    /// Reads the numbers sections back from the unpublished file to count numbers in both
    /// kinds and exact numbers already inside a range (a device loads those only once).
    func countOverlaps(writer: IndexWriter, blockSegments: [NumberRange], identifySegments: [NumberRange]) throws {
        let mapped = try writer.mapWritten()
        func set(_ data: SectionKind, _ directory: SectionKind) throws -> NumberSetReader {
            try NumberSetReader(data: writer.bytes(of: data, in: mapped), directorySection: writer.bytes(of: directory, in: mapped),
                                name: data.name, identified: data == .identifiedNumbers, path: writer.destination)
        }
        let blocked = try set(.blockedNumbers, .blockedDirectory)
        let identified = try set(.identifiedNumbers, .identifiedDirectory)
        // The compiler wrote these bytes itself: no block CRCs to check, only the decoding.
        func cursor(_ set: NumberSetReader) -> NumberCursor {
            NumberCursor(set, path: writer.destination, checkBlocks: false, releasingPagesOf: mapped)
        }
        var a = cursor(blocked)
        var b = cursor(identified)
        summary.numbersInBoth = try OverlapCounter.common(&a, &b)
        var c = cursor(blocked)
        let blockedInside = try OverlapCounter.insideRanges(&c, blockSegments)
        var d = cursor(identified)
        let identifiedInside = try OverlapCounter.insideRanges(&d, identifySegments)
        summary.deviceEntries = Int64(blocked.count - blockedInside) + summary.blockedRangeNumbers
            + Int64(identified.count - identifiedInside) + summary.identifiedRangeNumbers
    }

    func checkDeviceBudget() throws {
        guard let budget = options.maxNumbers, summary.deviceEntries > budget else { return }
        throw CallDirError(.limitExceeded,
                           "a device would have to load \(summary.deviceEntries) entries (ranges expanded), above --max-numbers \(budget); no index written",
                           path: options.output)
    }

    /// Writes the label sections, ranges and metadata. Range labels become shared labels here,
    /// in range order, after every entry's label: the same entries and ranges give the same
    /// bytes whatever the order of the input rows.
    func writeTables(writer: IndexWriter, blockSegments: [NumberRange], identifySegments: [(NumberRange, UInt32)]) throws {
        let rangeLabelIDs = identifySegments.map { segment in
            rangeLabels.withLabel(Int(segment.1)) { labels.sharedID(forRange: $0) }
        }
        let (shared, stream) = try labels.writeSections(to: writer)
        summary.labels = shared + stream
        var out: [UInt8] = []
        for r in blockSegments { out.appendLE(r.first); out.appendLE(r.last) }
        try writer.beginSection(.blockedRanges)
        try writer.write(out)
        try writer.endSection()
        out.removeAll()
        for ((r, _), label) in zip(identifySegments, rangeLabelIDs) {
            out.appendLE(r.first); out.appendLE(r.last); out.appendLE(label); out.appendLE(UInt32(0))
        }
        try writer.beginSection(.identifiedRanges)
        try writer.write(out)
        try writer.endSection()
        var metadata = IndexMetadata()
        metadata.blockedNumbers = summary.blockedNumbers
        metadata.identifiedNumbers = summary.identifiedNumbers
        metadata.numbersInBoth = summary.numbersInBoth
        metadata.blockedRanges = summary.blockedRanges
        metadata.identifiedRanges = summary.identifiedRanges
        metadata.blockedRangeNumbers = summary.blockedRangeNumbers
        metadata.identifiedRangeNumbers = summary.identifiedRangeNumbers
        metadata.labels = shared + stream
        metadata.sharedLabels = shared
        metadata.streamLabels = stream
        metadata.deviceEntries = summary.deviceEntries
        metadata.buildTime = options.buildTime
        try writer.beginSection(.metadata)
        try writer.write(metadata.encoded())
        try writer.endSection()
    }
}
