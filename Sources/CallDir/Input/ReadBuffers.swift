/// The buffer sizes an input pass allocates, and the longest line it accepts.
///
/// Every file, pipe and command reads with `.standard`. Tests and the fuzz harnesses read
/// short inputs from memory with `.small`: the same code paths (chunk refills, moving a partial
/// line to the front, the too-long-line error) are reached with a few bytes, and an input does
/// not allocate megabytes, which under AddressSanitizer costs more than parsing it.
struct ReadBuffers: Sendable, Equatable {
    /// Raw bytes read from the file per call (`ByteStream`), and `ByteCursor`'s buffer.
    var chunk: Int
    /// `LineReader`'s buffer; more than `maxLineLength + 1`.
    var lines: Int
    /// The longest line, and the longest unfolded vCard property, accepted.
    var maxLineLength: Int

    static let standard = ReadBuffers(chunk: 256 << 10, lines: 2 << 20, maxLineLength: 1 << 20)
    static let small = ReadBuffers(chunk: 1 << 10, lines: 8 << 10, maxLineLength: 4 << 10)

    init(chunk: Int, lines: Int, maxLineLength: Int) {
        precondition(chunk >= 2 && maxLineLength > 0 && lines > maxLineLength + 1, "inconsistent read buffers")
        self.chunk = chunk
        self.lines = lines
        self.maxLineLength = maxLineLength
    }

    /// `maxLineLength` for error messages: "1 MiB", or "4096 bytes".
    var maxLineDescription: String {
        maxLineLength % (1 << 20) == 0 ? "\(maxLineLength >> 20) MiB" : "\(maxLineLength) bytes"
    }
}
