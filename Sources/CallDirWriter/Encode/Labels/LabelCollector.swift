import CKernels
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
package final class LabelCollector {
    package static let sharedLimit = 1 << 16
    /// This collector's limit: `sharedLimit`, or 0 to keep every entry's label in the stream
    /// store (a delta's added entries).
    private let limit: Int
    /// Label fingerprints remembered (32 bits each: 512 KiB, so the table stays in a core's
    /// L2 cache; every new label probes it once).
    package static let candidateSlots = 1 << 17
    /// The symbol table is trained on the first labels of the stream store.
    package static let sampleLabels = 1 << 15
    package static let sampleBytes = 1 << 20

    package let shared = LabelTable()
    @exclusivity(unchecked) private var candidates = [UInt32](repeating: 0, count: candidateSlots)
    /// Where the coded stream blocks go (written by the coding thread until it is joined).
    private let spill: StreamSpill
    /// Stream labels after the sample, coded into store blocks on a helper thread. Touched for
    /// every stream label by the compile thread: exempt from run-time exclusivity checks.
    @exclusivity(unchecked) private var stream: StreamCoder?
    @exclusivity(unchecked) package private(set) var streamCount = 0
    /// The first stream labels, raw: the symbol table's training sample (`sampleLabels`, or
    /// up to the first label that would take it past `sampleBytes`).
    package private(set) var sample = PackedLabels()
    private var coder: LabelCoder?

    package init(temporaryFolder: String, sharedLimit: Int = LabelCollector.sharedLimit) {
        spill = StreamSpill(temporaryFolder: temporaryFolder)
        limit = sharedLimit
    }

    /// The hash `isShared` and `ref` take, computed once per row. Also starts loading the
    /// label's fingerprint slot, so that the row's checks run while the (512 KiB) table's
    /// cache miss resolves: the miss was most of `ref`'s time in a 1M-label compile.
    package func hashPrefetchingSlot(_ label: UnsafeRawBufferPointer) -> UInt64 {
        let hash = LabelTable.hash(label)
        candidates.withUnsafeBufferPointer { calldir_prefetch($0.baseAddress! + Self.slot(hash)) }
        return hash
    }

    /// True when `label` is a shared label already (its text passed the label checks).
    package func isShared(_ label: UnsafeRawBufferPointer, hash: UInt64) -> Bool { shared.knownID(label, hash: hash) != nil }

    /// The ref of the next entry's label (entries come in ascending number order).
    package func ref(for label: UnsafeRawBufferPointer) throws -> UInt32 { try ref(for: label, hash: LabelTable.hash(label)) }

    /// `ref(for:)` with the label's `LabelTable.hash`.
    package func ref(for label: UnsafeRawBufferPointer, hash: UInt64) throws -> UInt32 {
        if let id = shared.knownID(label, hash: hash) { return id }
        let slot = Self.slot(hash)
        let mark = UInt32(truncatingIfNeeded: hash >> 32) | 1  // 0 marks an empty slot
        if candidates[slot] == mark, shared.count < limit { return shared.intern(label, hash: hash) }
        candidates[slot] = mark
        return try appendToStream(label)
    }

    private static func slot(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: hash) & (candidateSlots - 1) }

    /// The shared id of a range's label: ranges always use shared labels (no limit: range
    /// rows are held in memory anyway).
    package func sharedID(forRange label: UnsafeRawBufferPointer) -> UInt32 { shared.intern(label) }

    package func sharedID(forRange label: String) -> UInt32 { shared.intern(label) }

    private func appendToStream(_ label: UnsafeRawBufferPointer) throws -> UInt32 {
        guard streamCount < LabelRef.maxStreamLabels else {
            throw CallDirError(.limitExceeded, "more than \(LabelRef.maxStreamLabels) distinct-label entries; split the list")
        }
        streamCount += 1
        if coder == nil, Self.fits(label, in: sample) {
            sample.append(label)
            return LabelRef.stream(streamCount - 1)
        }
        if coder == nil { try startCoding(trainingOn: sample) }
        try stream!.append(label)
        return LabelRef.stream(streamCount - 1)
    }

    /// Whether `label` still goes into the training sample `sample`.
    private static func fits(_ label: UnsafeRawBufferPointer, in sample: PackedLabels) -> Bool {
        sample.count < sampleLabels && sample.bytes.count + label.count <= sampleBytes
    }

    /// Builds the symbol table and codes the sample, the stream's first labels, into the spill.
    private func startCoding(trainingOn training: PackedLabels) throws {
        let coder = LabelCoder(SymbolTableBuilder.build(sample: training))
        self.coder = coder
        let spill = spill
        var writer = LabelStoreWriter(coder: coder) { try spill.file().append($0) }
        try sample.forEach { try writer.append($0) }
        stream = StreamCoder(writer: writer)
    }

    /// Writes the label-symbols, shared-labels and stream-labels sections, then removes the
    /// spill file. Returns the shared and stream label counts.
    package func writeSections(to writer: IndexWriter) throws -> (shared: Int, stream: Int) {
        defer { spill.remove() }
        if coder == nil {  // the stream ended inside the sample: train on shared labels too
            var training = sample
            for id in 0..<shared.count where training.count < Self.sampleLabels {
                shared.withLabel(id) { label in
                    if Self.fits(label, in: training) { training.append(label) }
                }
            }
            try startCoding(trainingOn: training)
        }
        guard let coder, let coding = self.stream else { preconditionFailure("LabelCollector: coding did not start") }
        var stream = try coding.finish()  // every stream label coded; the helper thread is done
        self.stream = nil
        try writer.beginSection(.labelSymbols)
        try writer.write(coder.symbols.encoded())
        try writer.endSection()

        var blocks: [UInt8] = []
        var store = LabelStoreWriter(coder: coder) { blocks.append(contentsOf: $0) }
        for id in 0..<shared.count { try shared.withLabel(id) { try store.append($0) } }
        try store.finishBlocks()
        try blocks.withUnsafeBytes { try store.writeSection(.sharedLabels, blocks: $0, to: writer) }

        try stream.finishBlocks()
        if let file = spill.opened {
            let coded = try file.mapWritten()
            try stream.writeSection(.streamLabels, blocks: coded.bytes, releasing: coded, to: writer)
        } else {
            try stream.writeSection(.streamLabels, blocks: UnsafeRawBufferPointer(start: nil, count: 0), to: writer)
        }
        return (shared.count, streamCount)
    }
}

/// The spill file of coded stream blocks, created when the first block is full (lists
/// without stream labels never touch the temporary folder): a nameless scratch file in the
/// caller's folder (`AtomicFile(unnamedIn:)`), so nothing is left behind whatever happens.
/// Its own object, not the collector's: the coding thread writes to it.
private final class StreamSpill {
    package let temporaryFolder: String
    package private(set) var opened: AtomicFile?

    package init(temporaryFolder: String) { self.temporaryFolder = temporaryFolder }

    package func file() throws -> AtomicFile {
        if let opened { return opened }
        let file = try AtomicFile(unnamedIn: temporaryFolder, destination: temporaryFolder, role: "the labels spilled while writing",
                                  scratchName: "calldir-label-spill (nameless)")
        opened = file
        return file
    }

    package func remove() {
        opened?.discard()
        opened = nil
    }
}
