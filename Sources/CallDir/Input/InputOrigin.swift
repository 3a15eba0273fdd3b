import CallDirReader

/// Where a source's bytes come from, across passes.
///
/// The file is opened when the source is created, so a missing file is reported at once, and
/// that stream (with any bytes peeked for format detection) serves the first pass. Later
/// passes reopen the path. Standard input and borrowed descriptors cannot be reopened: a
/// second pass over them is an error rather than a silent empty list. Bytes in memory (tests,
/// fuzzing) are read again from the start.
package final class InputOrigin {
    /// How diagnostics name the input: its path or `<stdin>`.
    let name: String
    /// The path to reopen for another pass, nil for stdin and descriptors.
    private let reopenablePath: String?
    /// The input when it is bytes in memory.
    private let memory: [UInt8]?
    private let buffers: ReadBuffers
    private var firstStream: ByteStream?

    /// Opens `path` (`-` is standard input).
    init(path: String) throws {
        let file = try InputFile.open(path: path)
        name = file.name
        reopenablePath = file.ownsDescriptor ? path : nil
        memory = nil
        buffers = .standard
        firstStream = ByteStream(file: file)
    }

    /// Reads from a descriptor opened by someone else, once. It is not closed.
    init(descriptor: Int32, name: String) {
        self.name = name
        reopenablePath = nil
        memory = nil
        buffers = .standard
        firstStream = ByteStream(file: InputFile(descriptor: descriptor, name: name, ownsDescriptor: false))
    }

    /// Reads `bytes` as a file named `name`, each pass with `buffers`.
    init(bytes: [UInt8], name: String, buffers: ReadBuffers) {
        self.name = name
        reopenablePath = nil
        memory = bytes
        self.buffers = buffers
        firstStream = ByteStream(file: InputFile(bytes: bytes, name: name), buffers: buffers)
    }

    /// The first decompressed bytes, for format detection; they are replayed to the parser.
    func peek(count: Int) throws -> UnsafeRawBufferPointer {
        guard let stream = firstStream else {
            preconditionFailure("peek after the first pass started")
        }
        return try stream.peek(count: count)
    }

    /// A stream positioned at the start of the input. The caller closes it when done.
    func openStream() throws -> ByteStream {
        if let stream = firstStream {
            firstStream = nil
            return stream
        }
        if let memory {
            return ByteStream(file: InputFile(bytes: memory, name: name), buffers: buffers)
        }
        guard let path = reopenablePath else {
            throw CallDirError(.io, "standard input or a pipe can be read only once; save it to a file "
                               + "to read it again", path: name)
        }
        return ByteStream(file: try InputFile.open(path: path))
    }
}
