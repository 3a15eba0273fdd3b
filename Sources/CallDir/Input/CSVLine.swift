/// Splitting one CSV line into fields (RFC 4180 quoting, one physical line per record).
///
/// A field that starts with `"` (after optional spaces) is quoted: delimiters inside it are
/// data and `""` stands for one quote. Unquoted fields are views into the line; quoted fields
/// are unescaped into `scratch` at the same offset they have in the line (an unescaped field is
/// never longer than its quoted form), so no field overwrites another and nothing is allocated.
/// Text after a closing quote, up to the next delimiter, is kept (`"a"b` reads as `ab`).
enum CSVLine {
    static let quote: UInt8 = 0x22
    static let space: UInt8 = 0x20

    enum Outcome {
        case complete
        /// A quoted field is still open at the end of the line (a multi-line field).
        case unterminatedQuote
    }

    /// Calls `body(index, field)` for each field until it returns false.
    /// `scratch` must be at least as long as `line`.
    static func forEachField(
        in line: UnsafeRawBufferPointer,
        delimiter: UInt8,
        scratch: UnsafeMutableRawBufferPointer,
        _ body: (Int, UnsafeRawBufferPointer) throws -> Bool
    ) rethrows -> Outcome {
        var index = 0
        var position = 0
        let count = line.count
        while true {
            var probe = position
            while probe < count && line[probe] == space { probe += 1 }
            let field: UnsafeRawBufferPointer
            var next: Int
            if probe < count && line[probe] == quote {
                guard let (unescaped, after) = unquote(line, from: probe, delimiter: delimiter, scratch: scratch)
                else { return .unterminatedQuote }
                field = unescaped
                next = after
            } else {
                next = position
                while next < count && line[next] != delimiter { next += 1 }
                field = UnsafeRawBufferPointer(rebasing: line[position..<next])
            }
            if try !body(index, field) { return .complete }
            if next >= count { return .complete }
            position = next + 1  // skip the delimiter
            index += 1
        }
    }

    /// Unescapes the quoted field whose opening quote is at `open`. Returns the field and the
    /// offset of the delimiter (or end of line) after it, or nil if the quote never closes.
    private static func unquote(
        _ line: UnsafeRawBufferPointer, from open: Int, delimiter: UInt8,
        scratch: UnsafeMutableRawBufferPointer
    ) -> (UnsafeRawBufferPointer, Int)? {
        let count = line.count
        var read = open + 1
        var write = open
        let fieldStart = open
        var closed = false
        while read < count {
            let byte = line[read]
            if !closed && byte == quote {
                if read + 1 < count && line[read + 1] == quote {
                    scratch[write] = quote
                    write += 1
                    read += 2
                    continue
                }
                closed = true
                read += 1
                continue
            }
            if closed && byte == delimiter { break }
            scratch[write] = byte
            write += 1
            read += 1
        }
        guard closed else { return nil }
        return (UnsafeRawBufferPointer(rebasing: scratch[fieldStart..<write]), read)
    }
}
