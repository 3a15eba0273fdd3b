import CallDirReader

/// The bytes of one input, decompressed when they are gzip.
///
/// gzip is recognised by its magic bytes (1f 8b), never by the file name, so it works on
/// stdin and pipes too. Nothing is seeked: the first chunk read for that check is kept and
/// served first. Likewise `peek(count:)` lets format detection look at the first decompressed
/// bytes, which the parser then reads again. Memory is fixed: one input buffer of
/// `buffers.chunk` bytes (256 KiB) and, if `peek` was used, a replay buffer of the peeked size.
package final class ByteStream: ByteSource {
    /// How diagnostics name this input.
    package let name: String
    /// The buffer sizes of this pass; the line reader and the cursor take theirs from here.
    let buffers: ReadBuffers
    /// A `ByteCursor`'s buffer size.
    package var chunkSize: Int { buffers.chunk }
    private let file: InputFile
    private var isClosed = false

    /// Raw bytes read from the file and not yet consumed (`pending`).
    private let inputBuffer: UnsafeMutableRawBufferPointer
    private var pending = UnsafeRawBufferPointer(start: nil, count: 0)
    private var fileEnded = false
    private var inflater: GzipInflater?
    private var detected = false

    /// Decompressed bytes produced by `peek`, served before anything else.
    private var replay: UnsafeMutableRawBufferPointer?
    private var replayStart = 0
    private var replayEnd = 0
    private var hasBeenRead = false

    init(file: InputFile, buffers: ReadBuffers = .standard) {
        self.file = file
        self.name = file.name
        self.buffers = buffers
        inputBuffer = .allocate(byteCount: buffers.chunk, alignment: 16)
    }

    deinit {
        close()
        inputBuffer.deallocate()
        replay?.deallocate()
    }

    /// Whether the input turned out to be gzip-compressed (reads the first bytes if needed).
    var isGzip: Bool {
        get throws {
            try detectCompression()
            return inflater != nil
        }
    }

    /// Closes the underlying file. Reading after this returns end of file.
    func close() {
        if !isClosed {
            isClosed = true
            file.close()
        }
    }

    /// Reads up to `output.count` decompressed bytes; returns 0 only at end of input.
    package func read(into output: UnsafeMutableRawBufferPointer) throws -> Int {
        hasBeenRead = true
        if let replay, replayStart < replayEnd {
            let n = min(output.count, replayEnd - replayStart)
            output.baseAddress!.copyMemory(from: replay.baseAddress! + replayStart, byteCount: n)
            replayStart += n
            return n
        }
        return try produce(into: output)
    }

    /// Returns at least the first `count` decompressed bytes (fewer only if the input is shorter)
    /// without consuming them. Must be called before the first `read`.
    func peek(count: Int) throws -> UnsafeRawBufferPointer {
        precondition(!hasBeenRead, "ByteStream.peek after read")
        if replay == nil || replay!.count < count {
            let bigger = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
            if let old = replay {
                bigger.baseAddress!.copyMemory(from: old.baseAddress!, byteCount: replayEnd)
                old.deallocate()
            }
            replay = bigger
        }
        let buffer = replay!
        while replayEnd < count {
            let n = try produce(into: UnsafeMutableRawBufferPointer(rebasing: buffer[replayEnd..<count]))
            if n == 0 { break }
            replayEnd += n
        }
        return UnsafeRawBufferPointer(rebasing: buffer[0..<min(count, replayEnd)])
    }

    /// Decompressed bytes from the file, bypassing the replay buffer.
    private func produce(into output: UnsafeMutableRawBufferPointer) throws -> Int {
        try detectCompression()
        if let inflater {
            return try inflater.inflate(into: output, input: &pending, refill: refillInput)
        }
        if !pending.isEmpty {
            let n = min(output.count, pending.count)
            output.baseAddress!.copyMemory(from: pending.baseAddress!, byteCount: n)
            pending = UnsafeRawBufferPointer(rebasing: pending[n...])
            return n
        }
        // Plain input: read straight into the caller's buffer, no copy.
        if fileEnded || isClosed { return 0 }
        let n = try file.read(into: output)
        if n == 0 { fileEnded = true }
        return n
    }

    /// Reads the first two bytes (looping, since a pipe may deliver one) to look for the gzip
    /// magic. The bytes read stay in `pending`.
    private func detectCompression() throws {
        if detected { return }
        detected = true
        var filled = 0
        while filled < 2 && !fileEnded {
            let n = isClosed ? 0 : try file.read(
                into: UnsafeMutableRawBufferPointer(rebasing: inputBuffer[filled...]))
            if n == 0 { fileEnded = true }
            filled += n
        }
        pending = UnsafeRawBufferPointer(rebasing: inputBuffer[0..<filled])
        if filled >= 2 && inputBuffer[0] == 0x1f && inputBuffer[1] == 0x8b {
            inflater = try GzipInflater(name: name)
        }
    }

    /// The next raw chunk for the inflater; empty at end of file.
    private func refillInput() throws -> UnsafeRawBufferPointer {
        if fileEnded || isClosed { return UnsafeRawBufferPointer(start: nil, count: 0) }
        let n = try file.read(into: inputBuffer)
        if n == 0 { fileEnded = true }
        // Not stored in `pending` here: the inflater holds `pending` inout while it calls this,
        // and hands the unconsumed rest back through it.
        return UnsafeRawBufferPointer(rebasing: inputBuffer[0..<n])
    }
}
