/// Byte-at-a-time reading over a `ByteStream`, with line counting, for the JSON and plist
/// scanners (formats where a value may span lines or a whole file may be one line).
///
/// Memory is one buffer of the stream's `buffers.chunk` bytes (256 KiB), or none over bytes
/// already in memory (a request body).
/// `line` is the 1-based line of the next unread byte.
final class ByteCursor {
    let stream: ByteStream?
    let name: String
    private(set) var line = 1
    private let buffer: UnsafeMutableRawBufferPointer
    private var position = 0
    private var end = 0
    private var atEnd = false

    init(stream: ByteStream) {
        self.stream = stream
        name = stream.name
        buffer = .allocate(byteCount: stream.buffers.chunk, alignment: 16)
    }

    /// Reads `bytes` in place; they must outlive the cursor and are never written.
    init(memory bytes: UnsafeRawBufferPointer, name: String) {
        stream = nil
        self.name = name
        buffer = UnsafeMutableRawBufferPointer(mutating: bytes)
        end = bytes.count
        atEnd = true
    }

    deinit { if stream != nil { buffer.deallocate() } }

    /// The next byte without consuming it, nil at end of input.
    @inline(__always)
    func peek() throws -> UInt8? {
        if position < end { return buffer[position] }
        return try refill() ? buffer[position] : nil
    }

    /// Consumes and returns the next byte, nil at end of input.
    @inline(__always)
    func next() throws -> UInt8? {
        guard let byte = try peek() else { return nil }
        position += 1
        if byte == 0x0A { line += 1 }
        return byte
    }

    /// Skips spaces, TABs, CRs and LFs.
    func skipWhitespace() throws {
        while let byte = try peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            position += 1
            if byte == 0x0A { line += 1 }
        }
    }

    /// Skips a UTF-8 byte order mark at the current position (call at the start).
    func skipByteOrderMark() throws {
        guard try peek() == 0xEF else { return }
        // The BOM's three bytes may straddle a refill; compare them one by one.
        for expected: UInt8 in [0xEF, 0xBB, 0xBF] {
            guard try peek() == expected else { return }
            position += 1
        }
    }

    /// Consumes `literal` if the input continues with it; returns false (having consumed the
    /// matching prefix) otherwise.
    func consume(_ literal: StaticString) throws -> Bool {
        let bytes = UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        for expected in bytes {
            guard try peek() == expected else { return false }
            _ = try next()
        }
        return true
    }

    private func refill() throws -> Bool {
        guard !atEnd, let stream else { return false }
        position = 0
        end = try stream.read(into: buffer)
        if end == 0 { atEnd = true }
        return end > 0
    }
}

/// How a byte is shown in "expected ... but found ..." messages.
func describeFound(_ byte: UInt8?) -> String {
    guard let byte else { return "the end of the file" }
    if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
    if byte == 0x20 { return "a space" }
    return "byte 0x" + String(byte, radix: 16, uppercase: true)
}

/// Appends the UTF-8 encoding of `scalar`, or of U+FFFD if it is not a Unicode scalar.
func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
    let value = Unicode.Scalar(scalar) ?? "\u{FFFD}"
    out.append(contentsOf: value.utf8)
}
