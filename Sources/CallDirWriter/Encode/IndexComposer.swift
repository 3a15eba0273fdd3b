import CallDirNumbers
import CallDirReader

/// An index written from entries already in hand: numbers of each kind ascending and
/// distinct, and ranges in any order (blocking ranges are merged; identification ranges are
/// flattened, the narrower range winning, ties to the earlier one). `calldir shard` writes
/// each shard with it, and the phone libraries' tests their indexes (TestSupport's
/// `buildIndex`). The compiler and the patch write through the same encoders, so the same
/// entries give the same bytes (`BuiltIndexTests`).
package struct IndexComposer {
    /// Calls its argument with every blocked number, ascending and distinct.
    package var blockedNumbers: ((Int64) throws -> Void) throws -> Void = { _ in }
    /// Calls its argument with every identified number and its label's UTF-8, ascending and distinct.
    package var identifiedNumbers: ((Int64, UnsafeRawBufferPointer) throws -> Void) throws -> Void = { _ in }
    package var blockedRanges: [NumberRange] = []
    package var identifiedRanges: [(range: NumberRange, label: String)] = []

    package init() {}

    /// Writes the index to `output` (atomically; labels spill to `temporaryFolder`); returns
    /// its metadata, size and checksum.
    @discardableResult
    package func write(to output: String, temporaryFolder: String) throws -> (metadata: IndexMetadata, bytes: Int, checksum: UInt32) {
        let writer = try IndexWriter(destination: output)
        do {
            let labels = LabelCollector(temporaryFolder: temporaryFolder)
            var blocked = try NumberSetEncoder(writer: writer, kind: .blockedNumbers, withLabels: false)
            try blockedNumbers { try blocked.append($0) }
            try blocked.finish()
            var identified = try NumberSetEncoder(writer: writer, kind: .identifiedNumbers, withLabels: true)
            try identifiedNumbers { n, label in try identified.append(n, label: labels.ref(for: label)) }
            try identified.finish()
            try blocked.writeDirectory(kind: .blockedDirectory, pages: .blockedDirectoryPages)
            try identified.writeDirectory(kind: .identifiedDirectory, pages: .identifiedDirectoryPages)
            let blockSegments = RangeMath.merge(blockedRanges)
            var rangeLabels: [String: UInt32] = [:]
            var labelTexts: [String] = []
            let identifySegments = RangeMath.flatten(identifiedRanges.enumerated().map { row, entry in
                let id = rangeLabels[entry.label] ?? {
                    labelTexts.append(entry.label)
                    rangeLabels[entry.label] = UInt32(labelTexts.count - 1)
                    return UInt32(labelTexts.count - 1)
                }()
                return (range: entry.range, label: id, origin: row)
            })
            let finisher = IndexFinisher(writer: writer, labels: labels)
            let counted = try finisher.metadata(blocked: blocked, identified: identified, blockSegments: blockSegments,
                                                identifySegments: identifySegments.map(\.0))
            let ids = identifySegments.map { labels.sharedID(forRange: labelTexts[Int($0.1)]) }
            let metadata = try finisher.writeTables(counted, blockSegments: blockSegments,
                                                    identifySegments: Array(zip(identifySegments.map(\.0), ids)))
            let (size, crc) = try writer.finish()
            try writer.commit()
            return (metadata, size, crc)
        } catch {
            writer.discard()
            throw error
        }
    }
}
