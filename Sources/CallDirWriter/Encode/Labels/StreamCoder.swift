import CallDirReader

/// Codes the stream store's labels on a helper thread: the compile thread copies each label
/// into a batch and goes on with the next row, and the helper codes whole batches with the
/// symbol table and writes the store blocks. Coding was a third of the compile thread's time
/// at 1M distinct labels, and the second core was mostly idle (the row reader uses a fifth of
/// it). Labels are coded in the order they came, so the bytes are the same as coding inline.
/// At most `queued` batches wait: memory stays a few hundred KiB whatever the list.
package final class StreamCoder {
    package static let batchBytes = 64 << 10
    package static let batchLabels = 4_096
    package static let queued = 4

    /// What the helper owns until it is joined: the writer, and the first error it met.
    private final class Coding: @unchecked Sendable {  // the helper's alone until `join`
        package var writer: LabelStoreWriter
        package var error: (any Error)?
        package init(_ writer: LabelStoreWriter) { self.writer = writer }
    }

    private let coding: Coding
    private let queue = Handoff<PackedLabels>(capacity: StreamCoder.queued)
    private var worker: WorkerThread?
    @exclusivity(unchecked) private var batch = PackedLabels()

    /// Starts the helper (or, when the system refuses a thread, codes on the caller's).
    package init(writer: LabelStoreWriter) {
        let coding = Coding(writer)
        self.coding = coding
        let queue = queue
        worker = WorkerThread {
            while let batch = queue.take() {
                do {
                    try Self.code(batch, into: &coding.writer)
                } catch {
                    coding.error = error
                    queue.close()  // the compile thread's next hand-off fails and rethrows this
                    return
                }
            }
        }
        batch.reserveCapacity(bytes: Self.batchBytes + IndexFormat.maxLabelBytes)
    }

    /// Stops and waits for the helper (after an error elsewhere in the compile, too).
    deinit {
        queue.close()
        worker?.join()
    }

    package func append(_ label: UnsafeRawBufferPointer) throws {
        batch.append(label)
        if batch.bytes.count >= Self.batchBytes || batch.count >= Self.batchLabels { try handOff() }
    }

    /// Codes what is left, waits for the helper and returns the writer (every label appended).
    package func finish() throws -> LabelStoreWriter {
        try handOff()
        queue.close()
        worker?.join()
        worker = nil
        if let error = coding.error { throw error }
        return coding.writer
    }

    private func handOff() throws {
        guard !batch.isEmpty else { return }
        let full = batch
        batch.removeAll()
        guard worker != nil else { return try Self.code(full, into: &coding.writer) }
        guard queue.put(full) else {
            worker?.join()
            worker = nil
            throw coding.error ?? CallDirError(.io, "the label coding thread stopped")
        }
    }

    private static func code(_ batch: PackedLabels, into writer: inout LabelStoreWriter) throws {
        try batch.forEach { try writer.append($0) }
    }
}
