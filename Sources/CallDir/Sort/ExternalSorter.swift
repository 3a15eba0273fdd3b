import CallDirReader

/// Sorts records (number, origin, optional label bytes) in bounded memory.
///
/// Records collect in a `RunBuffer` of `memoryBudget` bytes (each record costs 48 bytes, its
/// sort scratch included, plus its label). When it is full the records are radix-sorted and
/// written to a spill file as one sorted run. `drain` sorts the last run and, if nothing was
/// spilled, hands the records over from memory; otherwise it spills the last run too, frees
/// the buffer and merges all runs with a heap, each run read through its own buffer of
/// max(64 KiB, budget / (2 × runs)) bytes.
///
/// At most `mergeFanIn` runs are merged at once. Whenever that many runs of one generation
/// pile up they are merged into one run of the next generation (so the number of spill files
/// stays small however large the input), and `drain` merges the newest runs first until at
/// most `mergeFanIn` remain. Only consecutive runs are ever merged, which keeps the sort
/// stable: records with equal number and origin come out in the order they were appended.
///
/// Peak memory is about the budget plus 1 MiB of write buffer (and 64 KiB per merged run when
/// that exceeds half the budget). Spill files take about 20 bytes plus the label per record.
final class ExternalSorter {
    static let minimumBudget = 1 << 20
    static let defaultMergeFanIn = 128

    private let memoryBudget: Int
    private let mergeFanIn: Int
    private let folder: SpillFolder
    private let buffer: RunBuffer
    /// Spilled runs in appending order, each with its merge generation (0 = written from memory).
    private var runs: [(path: String, generation: Int)] = []
    private enum State { case collecting, drained, failed }
    // `@exclusivity(unchecked)`: see RunReader.
    @exclusivity(unchecked) private var state = State.collecting

    /// Runs spilled from memory (0 when everything fit in memory).
    private(set) var runCount = 0
    @exclusivity(unchecked) private(set) var recordCount = 0
    /// Bytes written to spill files, intermediate merges included.
    private(set) var spilledBytes = 0

    /// memoryBudget: bytes of record data held in memory before a run is spilled (at least
    /// 1 MiB; budgets above 4 GiB are used as 4 GiB). temporaryFolder: where the private spill
    /// folder is created, e.g. "/tmp" or --tmpdir.
    convenience init(memoryBudget: Int, temporaryFolder: String) throws {
        try self.init(memoryBudget: memoryBudget, temporaryFolder: temporaryFolder,
                      mergeFanIn: ExternalSorter.defaultMergeFanIn)
    }

    /// `mergeFanIn` (at least 2) is the most runs merged at once; tests lower it.
    init(memoryBudget: Int, temporaryFolder: String, mergeFanIn: Int) throws {
        precondition(mergeFanIn >= 2, "ExternalSorter: mergeFanIn must be at least 2")
        guard memoryBudget >= ExternalSorter.minimumBudget else {
            throw CallDirError(.limitExceeded, "a sort memory budget of \(memoryBudget) bytes is below the "
                                   + "minimum of 1 MiB; raise the memory budget")
        }
        self.memoryBudget = min(memoryBudget, Int(UInt32.max))
        self.mergeFanIn = mergeFanIn
        buffer = RunBuffer(capacity: self.memoryBudget)
        folder = try SpillFolder(parent: temporaryFolder)
    }

    deinit {
        buffer.release()
        folder.removeAll()
    }

    /// The private spill folder (removed by `drain` and on deinit).
    var spillFolderPath: String { folder.path }

    /// Copies the label bytes. `origin` is opaque (source index << 40 | line). After an error
    /// from a spill the sorter is unusable: discard it (deinit removes the spill files).
    func append(number: Int64, origin: UInt64, label: UnsafeRawBufferPointer?) throws {
        precondition(state == .collecting, "ExternalSorter: append after drain or after a failed spill")
        let length = label?.count ?? 0
        if !buffer.hasRoom(labelLength: length) {
            guard RunBuffer.fitsAlone(labelLength: length, capacity: memoryBudget) else {
                throw CallDirError(.limitExceeded, "a label of \(length) bytes does not fit in the sort memory "
                                       + "budget of \(memoryBudget) bytes; raise the memory budget")
            }
            state = .failed  // until the spill has succeeded
            try spill()
            state = .collecting
        }
        try buffer.append(number: number, origin: origin, label: label)
        recordCount += 1
    }

    /// Calls `body` for every record in ascending (number, origin) order. The label buffer is
    /// valid only during the call. Removes all spill files and the folder afterwards, also when
    /// `body` or the merge throws. Call at most once.
    func drain(_ body: (Int64, UInt64, UnsafeRawBufferPointer?) throws -> Void) throws {
        precondition(state == .collecting, "ExternalSorter: drain called twice or after a failed spill")
        state = .drained
        defer {
            buffer.release()
            folder.removeAll()
        }
        if runs.isEmpty {
            for record in buffer.sorted() {
                try body(record.number, record.origin, buffer.label(of: record))
            }
            return
        }
        if !buffer.isEmpty { try spill() }
        buffer.release()  // the merge's read buffers take its place
        while runs.count > mergeFanIn {
            try mergeNewest(min(mergeFanIn, runs.count - mergeFanIn + 1))
        }
        try RunMerger.merge(openReaders(runs[...]), into: body)
    }

    /// Writes the buffered records as one sorted run and empties the buffer.
    private func spill() throws {
        let path = folder.newFile()
        let writer = try RunWriter(path: path)
        for record in buffer.sorted() {
            try writer.append(number: record.number, origin: record.origin, label: buffer.label(of: record))
        }
        try writer.finish()
        buffer.reset()
        spilledBytes += writer.length
        runCount += 1
        runs.append((path, 0))
        try mergeFullGenerations()
    }

    /// While the newest `mergeFanIn` runs share a generation, merges them into one run of the
    /// next generation. The buffer is empty here; its memory is freed for the merge.
    private func mergeFullGenerations() throws {
        while runs.count >= mergeFanIn {
            let newest = runs.suffix(mergeFanIn)
            guard newest.allSatisfy({ $0.generation == newest.last!.generation }) else { return }
            buffer.release()
            try mergeNewest(mergeFanIn)
        }
    }

    /// Merges the newest `count` runs into one spill file that takes their place.
    private func mergeNewest(_ count: Int) throws {
        let group = runs.suffix(count)
        let path = folder.newFile()
        let writer = try RunWriter(path: path)
        try RunMerger.merge(openReaders(group)) { number, origin, label in
            try writer.append(number: number, origin: origin, label: label)
        }
        try writer.finish()
        spilledBytes += writer.length
        let generation = group.map(\.generation).max()! + 1
        for run in group { folder.remove(run.path) }
        runs.removeLast(count)
        runs.append((path, generation))
    }

    private func openReaders(_ group: ArraySlice<(path: String, generation: Int)>) throws -> [RunReader] {
        let bufferSize = max(64 << 10, memoryBudget / (2 * group.count))
        return try group.map { try RunReader(path: $0.path, bufferSize: bufferSize) }
    }
}
