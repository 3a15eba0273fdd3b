/// Where a `ByteCursor` refills from: the compiler's input stream (`ByteStream`, a file or
/// pipe, inflated when gzip). A request body is read in place and needs none.
package protocol ByteSource: AnyObject {
    /// The file's name, for messages.
    var name: String { get }
    /// How many bytes a cursor's buffer holds.
    var chunkSize: Int { get }
    /// Fills the start of `buffer`; returns how many bytes it wrote, 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

/// Byte-at-a-time reading over a `ByteSource`, with line counting, for the JSON and plist
/// scanners (formats where a value may span lines or a whole file may be one line). It lives
/// in the reader so everything that reads JSON shares it: the compiler's lists, the daemon's
/// batch bodies (`JSONStringArray`) and the feed's manifest and state (`JSONValue.parse`).
///
/// Memory is one buffer of the source's `chunkSize` bytes (256 KiB), or none over bytes
/// already in memory (a request body).
/// `line` is the 1-based line of the next unread byte.
package final class ByteCursor {
    let source: (any ByteSource)?
    package let name: String
    package private(set) var line = 1
    @usableFromInline let buffer: UnsafeMutableRawBufferPointer
    @usableFromInline var position = 0
    @usableFromInline var end = 0
    private var atEnd = false

    package init(source: any ByteSource) {
        self.source = source
        name = source.name
        buffer = .allocate(byteCount: source.chunkSize, alignment: 16)
    }

    /// Reads `bytes` in place; they must outlive the cursor and are never written.
    package init(memory bytes: UnsafeRawBufferPointer, name: String) {
        source = nil
        self.name = name
        buffer = UnsafeMutableRawBufferPointer(mutating: bytes)
        end = bytes.count
        atEnd = true
    }

    deinit { if source != nil { buffer.deallocate() } }

    /// How many bytes have been consumed, when reading bytes in memory (nil over a source,
    /// whose buffer is refilled).
    package var memoryOffset: Int? { source == nil ? position : nil }

    /// The next byte without consuming it, nil at end of input.
    @inlinable @inline(__always)
    package func peek() throws -> UInt8? {
        if position < end { return buffer[position] }
        return try refill() ? buffer[position] : nil
    }

    /// Consumes and returns the next byte, nil at end of input.
    @inlinable @inline(__always)
    package func next() throws -> UInt8? {
        guard let byte = try peek() else { return nil }
        position += 1
        if byte == 0x0A { countLine() }
        return byte
    }

    @usableFromInline func countLine() { line += 1 }

    /// Skips spaces, TABs, CRs and LFs.
    package func skipWhitespace() throws {
        while let byte = try peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            position += 1
            if byte == 0x0A { line += 1 }
        }
    }

    /// Skips a UTF-8 byte order mark at the current position (call at the start).
    package func skipByteOrderMark() throws {
        guard try peek() == 0xEF else { return }
        // The BOM's three bytes may straddle a refill; compare them one by one.
        for expected: UInt8 in [0xEF, 0xBB, 0xBF] {
            guard try peek() == expected else { return }
            position += 1
        }
    }

    /// Consumes `literal` if the input continues with it; returns false (having consumed the
    /// matching prefix) otherwise.
    package func consume(_ literal: StaticString) throws -> Bool {
        let bytes = UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        for expected in bytes {
            guard try peek() == expected else { return false }
            _ = try next()
        }
        return true
    }

    @usableFromInline func refill() throws -> Bool {
        guard !atEnd, let source else { return false }
        position = 0
        end = try source.read(into: buffer)
        if end == 0 { atEnd = true }
        return end > 0
    }
}

/// How a byte is shown in "expected ... but found ..." messages.
package func describeFound(_ byte: UInt8?) -> String {
    guard let byte else { return "the end of the file" }
    if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
    if byte == 0x20 { return "a space" }
    return "byte 0x" + String(byte, radix: 16, uppercase: true)
}

/// Appends the UTF-8 encoding of `scalar`, or of U+FFFD if it is not a Unicode scalar.
package func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
    let value = Unicode.Scalar(scalar) ?? "\u{FFFD}"
    out.append(contentsOf: value.utf8)
}
