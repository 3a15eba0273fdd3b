import CallDirReader

/// Gives each identification entry its label ref, in memory that does not grow with the
/// number of distinct labels (FORMAT.md, "Labels"):
/// - a label seen before in the entry stream becomes a shared label (one copy, referred to by
///   id) while there are fewer than `sharedLimit` shared labels;
/// - any other label is appended to the stream store for this entry alone (spilled to a
///   temporary file until the index is written).
/// "Seen before" is a fixed table of label hashes (the last label per slot), so a label
/// repeated far apart may stay in the stream store: deduplication happens where it pays
/// (the frequent labels), not everywhere. Every decision depends only on the ascending entry
/// stream, so the same entries give the same bytes however they were read or sorted.
final class LabelCollector {
    static let sharedLimit = 1 << 16
    /// This collector's limit: `sharedLimit`, or 0 to keep every entry's label in the stream
    /// store (a delta's added entries).
    private let limit: Int
    static let candidateSlots = 1 << 18
    /// The symbol table is trained on the first labels of the stream store.
    static let sampleLabels = 1 << 15
    static let sampleBytes = 1 << 20

    let shared = LabelTable()
    @exclusivity(unchecked) private var candidates = [UInt64](repeating: 0, count: candidateSlots)
    private let temporaryFolder: String
    private var spillFolder: SpillFolder?
    private var spill: RunWriter?
    private(set) var streamCount = 0
    private(set) var sample: [UInt8] = []
    private(set) var sampleEnds: [Int] = []

    init(temporaryFolder: String, sharedLimit: Int = LabelCollector.sharedLimit) {
        self.temporaryFolder = temporaryFolder
        limit = sharedLimit
    }

    /// True when `label` is a shared label already (its text passed the label checks).
    func isShared(_ label: UnsafeRawBufferPointer) -> Bool { shared.knownID(label) != nil }

    /// The ref of the next entry's label (entries come in ascending number order).
    func ref(for label: UnsafeRawBufferPointer) throws -> UInt32 {
        let hash = LabelTable.hash(label)
        if let id = shared.knownID(label, hash: hash) { return id }
        let slot = Int(truncatingIfNeeded: hash) & (Self.candidateSlots - 1)
        let mark = hash | 1  // 0 marks an empty slot
        if candidates[slot] == mark, shared.count < limit { return shared.intern(label, hash: hash) }
        candidates[slot] = mark
        return try appendToStream(label)
    }

    /// The shared id of a range's label: ranges always use shared labels (no limit: range
    /// rows are held in memory anyway).
    func sharedID(forRange label: UnsafeRawBufferPointer) -> UInt32 { shared.intern(label) }

    private func appendToStream(_ label: UnsafeRawBufferPointer) throws -> UInt32 {
        guard streamCount < LabelRef.maxStreamLabels else {
            throw CallDirError(.limitExceeded, "more than \(LabelRef.maxStreamLabels) distinct-label entries; split the list")
        }
        if spill == nil {
            let folder = try SpillFolder(parent: temporaryFolder)
            spillFolder = folder
            spill = try RunWriter(path: folder.newFile())
        }
        try spill!.append(number: 0, origin: 0, label: label)
        if sampleEnds.count < Self.sampleLabels, sample.count + label.count <= Self.sampleBytes {
            sample.append(contentsOf: label)
            sampleEnds.append(sample.count)
        }
        streamCount += 1
        return LabelRef.stream(streamCount - 1)
    }

    /// Writes the label-symbols, shared-labels and stream-labels sections, then removes the
    /// spill file. Returns the shared and stream label counts.
    func writeSections(to writer: IndexWriter) throws -> (shared: Int, stream: Int) {
        defer { spillFolder?.removeAll() }
        var sample = self.sample
        var ends = sampleEnds
        for id in 0..<shared.count where ends.count < Self.sampleLabels {  // few stream labels: train on shared ones too
            shared.withLabel(id) { label in
                guard sample.count + label.count <= Self.sampleBytes else { return }
                sample.append(contentsOf: label)
                ends.append(sample.count)
            }
        }
        let coder = LabelCoder(SymbolTableBuilder.build(sample: sample, ends: ends))
        try writer.beginSection(.labelSymbols)
        try writer.write(coder.symbols.encoded())
        try writer.endSection()

        var store = try LabelStoreWriter(writer: writer, kind: .sharedLabels, count: shared.count, coder: coder)
        for id in 0..<shared.count { try shared.withLabel(id) { try store.append($0) } }
        try store.finish()

        store = try LabelStoreWriter(writer: writer, kind: .streamLabels, count: streamCount, coder: coder)
        if let spill, let folder = spillFolder {
            try spill.finish()
            let reader = try RunReader(path: spill.path, bufferSize: 1 << 20)
            while try reader.next() { try store.append(reader.label ?? UnsafeRawBufferPointer(start: nil, count: 0)) }
            folder.remove(spill.path)
        }
        try store.finish()
        return (shared.count, streamCount)
    }
}
