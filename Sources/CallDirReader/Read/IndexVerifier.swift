/// Checks every checksum and structural invariant of an opened index: what `calldir verify`
/// runs and what the daemon runs before it serves a file. The first problem found is thrown,
/// naming the damaged section.
struct IndexVerifier {
    let index: CallDirIndex

    func verifyAll() throws {
        // Every pass drops what it has read from resident memory (a no-op on a private copy):
        // verifying a 10M-number index then peaks at a few MiB above the process, not its size.
        try SectionTable.checkAllCRCs(index.sections, bytes: index.file.bytes, checksum: index.checksum, path: index.path,
                                      releasing: index.file)
        try verifyLayout()
        try index.blocked.checkAllPages(path: index.path)
        try index.identified.checkAllPages(path: index.path)
        try verifyNumbers(index.blocked, withLabels: false)
        try verifyNumbers(index.identified, withLabels: true)
        try verifyLabels()
        try verifyMetadata()
    }

    func damage(_ section: String, _ message: String) -> CallDirError {
        CallDirError(.corruptIndex, "\(section): \(message)", path: index.path)
    }

    private func verifyNumbers(_ set: NumberSetReader, withLabels: Bool) throws {
        var previous: Int64 = 0
        var streamLabels = 0  // stream labels used by the blocks before this one
        var released = ReleaseWindow(file: index.file)
        defer { released.finish() }
        for b in 0..<set.blockCount {
            released.advance(past: set.blockBytes(b))
            guard set.blockIsIntact(b) else { throw damage(set.name, "block \(b) fails its checksum") }
            guard let block = set.reader(forBlock: b) else { throw damage(set.name, "block \(b) is malformed") }
            var ordered = true
            let produced = block.forEach { value in
                ordered = value > previous && value <= E164.validValues.upperBound
                previous = value
                return ordered
            }
            guard ordered else { throw damage(set.name, "block \(b): numbers not strictly ascending") }
            guard produced == block.count else { throw damage(set.name, "block \(b) decodes \(produced) of \(block.count) numbers") }
            try verifyBlockLayout(set, block, b, last: previous)
            if withLabels {
                guard block.streamBase == streamLabels else {
                    throw damage(set.name, "block \(b) starts at stream label \(block.streamBase), expected \(streamLabels)")
                }
                streamLabels += block.streamCount
                for i in 0..<block.count {
                    let ref = block.label(at: i)
                    guard LabelRef.isStream(ref) || Int(ref) < index.labels.sharedCount else {
                        throw damage(set.name, "block \(b) refers to missing shared label \(ref)")
                    }
                }
            }
        }
        if withLabels, streamLabels != index.labels.stream.count {
            throw damage(set.name, "blocks use \(streamLabels) stream labels, the store holds \(index.labels.stream.count)")
        }
    }

    /// Every label block of both stores, checked as a lookup checks a block it first reads,
    /// and dropped behind the pass as the number blocks are (1M labels: several MiB).
    private func verifyLabels() throws {
        for store in [index.labels.shared, index.labels.stream] {
            var released = ReleaseWindow(file: index.file)
            defer { released.finish() }
            for b in 0..<store.blockCount {
                if let (bytes, _) = store.blockBytes(b) { released.advance(past: bytes) }
                try store.validate(b, symbols: index.labels.symbols, path: index.path)
            }
        }
    }

    /// The metadata's counts against the sections, in O(1) (ranges: O(ranges), already read
    /// at open): run at every open, so no command answers from a file whose counts lie (an
    /// emptied range section exported without its range, `diff --report` contradicting itself).
    func checkCountsAgainstSections() throws {
        let m = index.metadata
        guard m.blockedNumbers == index.blocked.count, m.identifiedNumbers == index.identified.count,
              m.blockedRanges == index.blockedRanges.count, m.identifiedRanges == index.identifiedRanges.count,
              m.labels == index.labelCount else {
            throw damage(SectionKind.metadata.name, "counts disagree with the sections")
        }
        guard m.blockedRangeNumbers == index.blockedRanges.numberCount, m.identifiedRangeNumbers == index.identifiedRanges.numberCount,
              m.numbersInBoth <= min(m.blockedNumbers, m.identifiedNumbers),
              m.deviceEntries <= Int64(m.blockedNumbers + m.identifiedNumbers) + m.blockedRangeNumbers + m.identifiedRangeNumbers else {
            throw damage(SectionKind.metadata.name, "derived counts (numbers in both, range numbers, device entries) disagree with the sections")
        }
    }

    /// The derived counts that need a pass over the numbers (numbers in both kinds, device
    /// entries) must match a recount: the device feed and `simulate` rely on them.
    private func verifyMetadata() throws {
        let m = index.metadata
        func cursor(_ set: NumberSetReader) -> NumberCursor { NumberCursor(set, path: index.path, checkBlocks: false, releasingPagesOf: index.file) }
        var a = cursor(index.blocked), b = cursor(index.identified)
        let inBoth = try OverlapCounter.common(&a, &b)
        // Device entries as the feed hands them out; each kind's are fewer than 10^15, so the sum cannot overflow.
        let device = try DeviceEntryStream(index: index, kind: .blocking).count()
            + DeviceEntryStream(index: index, kind: .identification).count()
        guard m.numbersInBoth == inBoth, m.deviceEntries == device else {
            throw damage(SectionKind.metadata.name, "derived counts (numbers in both, range numbers, device entries) disagree with the sections")
        }
    }
}

/// Drops a sequential pass's bytes from resident memory 4 MiB behind it (one madvise per
/// 4 MiB, not one per block).
private struct ReleaseWindow {
    let file: MappedFile
    var from: Int?
    var upTo = 0

    init(file: MappedFile) { self.file = file }

    mutating func advance(past bytes: UnsafeRawBufferPointer) {
        guard let base = file.bytes.baseAddress, let start = bytes.baseAddress else { return }
        let offset = start - base
        if from == nil { from = offset }
        // What came before this block is done; release it once it spans 4 MiB.
        if let from, offset - from >= 4 << 20 {
            file.release(from..<offset)
            self.from = offset
        }
        upTo = offset + bytes.count
    }

    func finish() {
        if let from, upTo > from { file.release(from..<upTo) }
    }
}
