import CZlib
import CallDirReader

/// gzip decompression with zlib's `inflate`, member after member.
///
/// Why not `gzread`: it passes plain text through, and treats a truncated file as a normal end
/// of file unless `gzerror` is checked. Here the caller decides gzip from the magic bytes, and
/// the end of input before `Z_STREAM_END` is an error. Concatenated members (`cat a.gz b.gz`)
/// are read as one stream, as `gzip -d` does.
///
/// The `z_stream` lives at a fixed heap address: zlib keeps a back pointer to it and rejects a
/// stream that has moved.
final class GzipInflater {
    private let stream: UnsafeMutablePointer<z_stream>
    private let name: String
    /// True after `Z_STREAM_END` until another member starts.
    private var memberEnded = false

    init(name: String) throws {
        self.name = name
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // windowBits 15 + 16: gzip wrapper only; the caller has already seen the magic bytes.
        let rc = inflateInit2_(stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        if rc != Z_OK {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw CallDirError(.io, "cannot start gzip decompression (zlib error \(rc)); is the system out of memory?",
                               path: name)
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Decompresses into `output`, pulling compressed bytes with `refill` when the current input
    /// is used up. `refill` returns the next compressed chunk, empty at end of file. Returns the
    /// number of bytes produced; 0 means the last member ended cleanly at end of file.
    func inflate(
        into output: UnsafeMutableRawBufferPointer,
        input: inout UnsafeRawBufferPointer,
        refill: () throws -> UnsafeRawBufferPointer
    ) throws -> Int {
        guard let outBase = output.baseAddress, output.count > 0 else { return 0 }
        stream.pointee.next_out = outBase.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = UInt32(clamping: output.count)
        defer { input = remainingInput() }
        setInput(input)
        while stream.pointee.avail_out > 0 {
            let produced = output.count - Int(stream.pointee.avail_out)
            if stream.pointee.avail_in == 0 {
                // Hand back what we have before blocking on a pipe for more input.
                if produced > 0 { return produced }
                let next = try refill()
                if next.isEmpty {
                    if memberEnded { return 0 }
                    throw CallDirError(.badInput, "truncated gzip data: the file ends inside the compressed stream; "
                                       + "download or copy it again", path: name)
                }
                setInput(next)
            }
            if memberEnded {
                // More input after a member: another member follows (or garbage, which
                // inflate reports as a bad header).
                inflateReset(stream)
                memberEnded = false
            }
            try step()
        }
        return output.count
    }

    /// One call to `inflate`, mapping zlib's result codes.
    private func step() throws {
        let rc = CZlib.inflate(stream, Z_NO_FLUSH)
        switch rc {
        case Z_OK:
            return
        case Z_STREAM_END:
            memberEnded = true
        case Z_BUF_ERROR where stream.pointee.avail_in == 0:
            return  // needs more input; the caller refills
        default:
            let detail = stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(rc)"
            throw CallDirError(.badInput, "corrupt gzip data: \(detail); the file is damaged, "
                               + "download or copy it again", path: name)
        }
    }

    private func setInput(_ chunk: UnsafeRawBufferPointer) {
        stream.pointee.next_in = UnsafeMutablePointer(
            mutating: chunk.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = UInt32(clamping: chunk.count)
    }

    private func remainingInput() -> UnsafeRawBufferPointer {
        guard let next = stream.pointee.next_in else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: next, count: Int(stream.pointee.avail_in))
    }
}
