import Glibc
import CallDirReader

/// Splits a byte stream into lines, without allocating per line.
///
/// Newlines are found 8 bytes at a time (`ByteSearch`). Each line is handed out as a view into
/// a 2 MiB buffer (`ReadBuffers.lines`), without its `\n` and without a trailing `\r` (so CRLF
/// and LF files read the same), with its 1-based line number. A last line without a newline is still a line. A UTF-8 byte order mark at the start of the first
/// line is dropped. Lines longer than `maxLineLength` are an error: such a "line" is almost
/// always a binary file or a file with CR-only line ends, and refusing it bounds memory.
struct LineReader {
    /// The longest line of a standard pass (`ReadBuffers.standard`).
    static let maxLineLength = ReadBuffers.standard.maxLineLength

    let stream: ByteStream

    /// Calls `body(line, lineNumber)` for every line, in order. The view is valid only during
    /// the call.
    func forEachLine(_ body: (UnsafeRawBufferPointer, Int) throws -> Void) throws {
        let bufferSize = stream.buffers.lines
        let maxLineLength = stream.buffers.maxLineLength
        // 8 bytes of slack after the buffer: the word-at-a-time scan may load past `end`.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize + 8, alignment: 64)
        defer { buffer.deallocate() }
        let base = buffer.baseAddress!
        let fillable = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<bufferSize])
        var start = 0       // first byte of the current (incomplete) line
        var end = 0         // end of valid bytes
        var scanFrom = 0    // bytes before this offset hold no newline after `start`
        var lineNumber = 0
        var atEnd = false
        while true {
            // Hot loop: find newlines 8 bytes at a time; each line is a view into the buffer.
            var offset = scanFrom
            while offset < end {
                var newlines = ByteSearch.matches(ByteSearch.load(base + offset), 0x0A)
                if end - offset < 8 { newlines &= (1 &<< UInt64((end - offset) &* 8)) &- 1 }
                while newlines != 0 {
                    let newlineOffset = offset &+ ByteSearch.firstOffset(newlines)
                    lineNumber &+= 1
                    try emit(base + start, newlineOffset &- start, lineNumber, body)
                    start = newlineOffset &+ 1
                    newlines &= newlines &- 1
                }
                offset &+= 8
            }
            scanFrom = end
            if atEnd {
                if start < end {
                    lineNumber += 1
                    try emit(base + start, end - start, lineNumber, body)
                }
                return
            }
            if end - start > maxLineLength + 1 {
                throw tooLong(lineNumber + 1)
            }
            if start > 0 {
                // Move the incomplete line to the front; it is short unless lines are huge.
                memmove(base, base + start, end - start)
                end -= start
                scanFrom -= start
                start = 0
            }
            let n = try stream.read(into: UnsafeMutableRawBufferPointer(rebasing: fillable[end...]))
            if n == 0 { atEnd = true } else { end += n }
        }
    }

    @inline(__always)
    private func emit(
        _ start: UnsafeMutableRawPointer, _ length: Int, _ lineNumber: Int,
        _ body: (UnsafeRawBufferPointer, Int) throws -> Void
    ) throws {
        var first = UnsafeRawPointer(start)
        var count = length
        if count > 0 && first.load(fromByteOffset: count &- 1, as: UInt8.self) == 0x0D { count &-= 1 }
        if lineNumber == 1 && count >= 3 && first.load(as: UInt8.self) == 0xEF
            && first.load(fromByteOffset: 1, as: UInt8.self) == 0xBB
            && first.load(fromByteOffset: 2, as: UInt8.self) == 0xBF {
            first += 3
            count -= 3
        }
        if count > stream.buffers.maxLineLength { throw tooLong(lineNumber) }
        try body(UnsafeRawBufferPointer(start: first, count: count), lineNumber)
    }

    private func tooLong(_ lineNumber: Int) -> CallDirError {
        CallDirError(.badInput, "line longer than \(stream.buffers.maxLineDescription); is this a binary file, or a list with CR-only "
                     + "line ends? Convert it to one entry per line", path: stream.name, line: lineNumber)
    }
}

/// Calls `body(line, lineNumber)` for every line of `path` (`-` is standard input), with LF or
/// CRLF removed and gzip decompressed, as the list readers see them. The view is valid only
/// during the call. For tools that read numbers a line at a time (`calldir lookup -`).
package func forEachLine(ofFile path: String, _ body: (UnsafeRawBufferPointer, Int) throws -> Void) throws {
    let stream = try InputOrigin(path: path).openStream()
    defer { stream.close() }
    try LineReader(stream: stream).forEachLine(body)
}
