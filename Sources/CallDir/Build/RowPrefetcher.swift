import CallDirNumbers
import CallDirReader
import CallDirWriter

/// Reads a source on a second thread, a few thousand rows ahead of the compile loop, so that
/// a compile uses two cores: the reading thread splits lines and turns the common rows (plain
/// valid numbers, when no label is needed) into integers; the compile thread validates,
/// encodes and writes. Rows come out in source order, and everything that reports (rejects,
/// order, labels, diagnostics) still happens on the compile thread, so results and messages
/// are those of a one-thread read. A source error reaches the compile thread after the rows
/// read before it. Memory: `depth + 1` batches of 16,384 rows (at most ~1.3 MB each).
///
/// Profile (10M-line sorted list, callgrind): reading and the number fast path were ~60% of a
/// compile's instructions, validation and encoding ~40%.
enum RowPrefetcher {
    static let depth = 3

    /// Calls `body` with every row of `source`, in order, as batches. With `plainNumbers`,
    /// rows whose number field `normalizer.validPlainNumber` accepts arrive as integers, except
    /// the first `textSamples` rows, which arrive as text (the national-list check reads them
    /// as written: `NationalListCheck`).
    static func forEachBatch(of source: any EntrySource, normalizer: NumberNormalizer, plainNumbers: Bool, textSamples: Int = 0,
                             _ body: (RowBatch) throws -> Void) throws {
        let full = Handoff<RowBatch>(capacity: depth)
        let empty = Handoff<RowBatch>(capacity: depth)
        for _ in 0..<depth { _ = empty.put(RowBatch()) }
        let reader = SourceBox(source)
        let thread = WorkerThread {
            // Source errors travel in the last batch; nothing else is thrown here.
            try? fill(from: reader.source, normalizer: normalizer, plainNumbers: plainNumbers, textSamples: textSamples, into: RowBatch()) { batch in
                guard full.put(batch) else { return nil }
                return empty.take()?.emptied()
            }
            full.close()
        }
        guard let thread else {  // no second thread: read inline
            try fill(from: source, normalizer: normalizer, plainNumbers: plainNumbers, textSamples: textSamples, into: RowBatch()) { batch in
                try body(batch)
                if let error = batch.error { throw error }
                return batch.emptied()
            }
            return
        }
        var finished = false
        defer {
            full.close()  // stops the reader at its next batch if the compile loop failed
            empty.close()
            // After a failure the reader may be blocked reading a pipe: let it end on its own
            // (it owns what it uses) rather than wait for input that may never come.
            if finished { thread.join() } else { thread.detach() }
        }
        while let batch = full.take() {
            try body(batch)
            if let error = batch.error { throw error }
            _ = empty.put(batch)
        }
        finished = true
    }

    /// Reads `source` into batches. `deliver` takes each full batch (and the last one, which
    /// carries the source's error if it failed) and returns an empty one, or nil to stop.
    private static func fill(from source: any EntrySource, normalizer: NumberNormalizer, plainNumbers: Bool, textSamples: Int,
                             into first: RowBatch, deliver: (RowBatch) throws -> RowBatch?) throws {
        try withoutActuallyEscaping(deliver) { deliver in
            var filler = BatchFiller(normalizer: normalizer, plainNumbers: plainNumbers, deliver: deliver, batch: first)
            filler.textSamples = textSamples
            do {
                if let text = source as? TextListSource {
                    try text.forEachRow(into: &filler)  // the filler compiled into the line loop
                } else {
                    try source.forEachRow { try filler.take($0) }
                }
            } catch let consumer as Consumer {
                if let error = consumer.error { throw error }
                return  // stopped
            } catch {
                filler.batch.error = error  // the rows read so far go first, then the error
            }
            filler.batch.count = filler.count
            _ = try deliver(filler.batch)
        }
    }

    /// Puts rows into batches. A struct, and its counters are not properties of the batch
    /// (a class): the row loop then needs no run-time exclusivity checks.
    private struct BatchFiller: RowSink {
        let normalizer: NumberNormalizer
        let plainNumbers: Bool
        let deliver: (RowBatch) throws -> RowBatch?
        var batch: RowBatch
        var count = 0
        var textIsFull = false
        /// Rows still to hand over as text whatever they hold (the first rows of a source).
        var textSamples = 0

        init(normalizer: NumberNormalizer, plainNumbers: Bool, deliver: @escaping (RowBatch) throws -> RowBatch?,
             batch: RowBatch) {
            self.normalizer = normalizer
            self.plainNumbers = plainNumbers
            self.deliver = deliver
            self.batch = batch
        }

        @inline(__always)
        mutating func take(_ row: SourceRow) throws {
            batch.lines[count] = row.line
            if plainNumbers, textSamples == 0, let number = normalizer.validPlainNumber(row.number) {
                batch.numbers[count] = number
            } else {
                if textSamples > 0 { textSamples -= 1 }
                batch.numbers[count] = 0
                textIsFull = batch.addText(row)
            }
            count += 1
            if count == RowBatch.capacity || textIsFull { try handOver() }
        }

        private mutating func handOver() throws {
            batch.count = count
            count = 0
            textIsFull = false
            let next: RowBatch?
            do { next = try deliver(batch) } catch { throw Consumer(error: error) }
            guard let next else { throw Consumer(error: nil) }
            batch = next
        }
    }

    /// Wraps what `deliver` threw (or nil: stop) to pass it through the source unchanged.
    private struct Consumer: Error { let error: Error? }
}

/// The source, handed to the reading thread, which alone uses it until the compile loop has
/// joined that thread.
private final class SourceBox: @unchecked Sendable {
    let source: any EntrySource
    init(_ source: any EntrySource) { self.source = source }
}

/// Rows in source order: each is a number (a row the reading thread normalised) or a copy of
/// the row's text (every other row, for the compile thread's full path). Reused: fixed
/// storage written through pointers, so filling a row costs no array bookkeeping.
final class RowBatch {
    static let capacity = 1 << 14

    /// Per row: the number, or 0 (never a valid number) for a row kept as text.
    let numbers = UnsafeMutablePointer<Int64>.allocate(capacity: capacity)
    let lines = UnsafeMutablePointer<Int>.allocate(capacity: capacity)
    var count = 0
    /// Text rows, in order: their number and label fields as ranges of `text`. One thread at
    /// a time owns a batch (the handoff orders them): no run-time exclusivity checks needed.
    @exclusivity(unchecked) private var textRows: [(number: Range<Int>, label: Range<Int>?)] = []
    @exclusivity(unchecked) private var text: [UInt8] = []
    /// Set on the last batch when the source failed after its rows.
    var error: Error?

    deinit {
        numbers.deallocate()
        lines.deallocate()
    }

    /// Copies the row's fields; true when the text storage has reached 1 MiB.
    func addText(_ row: SourceRow) -> Bool {
        let number = text.count..<(text.count + row.number.count)
        text.append(contentsOf: row.number)
        let label = row.label.map { label in
            defer { text.append(contentsOf: label) }
            return text.count..<(text.count + label.count)
        }
        textRows.append((number, label))
        return text.count >= 1 << 20
    }

    /// This batch, cleared for reuse.
    func emptied() -> RowBatch {
        count = 0
        textRows.removeAll(keepingCapacity: true)
        text.removeAll(keepingCapacity: true)
        return self
    }

    /// Calls `body` with text row `index` (the caller counts the zeros it met in `numbers`).
    func withTextRow<T>(_ index: Int, line: Int, _ body: (SourceRow) throws -> T) rethrows -> T {
        try text.withUnsafeBytes { bytes in
            let (number, label) = textRows[index]
            return try body(SourceRow(line: line, number: UnsafeRawBufferPointer(rebasing: bytes[number]),
                                      label: label.map { UnsafeRawBufferPointer(rebasing: bytes[$0]) }))
        }
    }
}
