/// Reading JSON tokens (RFC 8259) from a `ByteCursor`, without Foundation.
///
/// Strings are decoded (all escapes, `\uXXXX` with surrogate pairs; a lone surrogate becomes
/// U+FFFD) into a caller's array; numbers are validated and kept as their literal text.
/// Every error says what was expected and where.
package struct JSONScanner {
    /// Longest string or number accepted, to bound memory on hostile input.
    package static let maxTokenLength = 1 << 20
    package static let maxDepth = 512

    package let cursor: ByteCursor

    package init(cursor: ByteCursor) { self.cursor = cursor }

    package func error(_ message: String, line: Int? = nil) -> CallDirError {
        CallDirError(.badInput, "malformed JSON: " + message, path: cursor.name, line: line ?? cursor.line)
    }

    /// Consumes `byte` or throws "expected <what> but found ...".
    package func expect(_ byte: UInt8, _ what: String) throws {
        let found = try cursor.peek()
        guard found == byte else { throw error("expected \(what) but found \(describeFound(found))") }
        _ = try cursor.next()
    }

    /// Reads the string at the cursor (which is on its opening quote), appending its decoded
    /// UTF-8 to `out`.
    package func readString(into out: inout [UInt8]) throws {
        let startLine = cursor.line
        try expect(0x22, "'\"'")
        let startCount = out.count
        var pendingHigh: UInt32?  // a high surrogate waiting for its low half
        while true {
            guard let byte = try cursor.next() else {
                throw error("unterminated string (the file ends inside it)", line: startLine)
            }
            if byte == 0x5C {  // backslash
                let unit = try readEscape()
                if unit >= 0xDC00 && unit <= 0xDFFF, let high = pendingHigh {
                    appendUTF8(0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00), to: &out)
                    pendingHigh = nil
                    continue
                }
                if pendingHigh != nil { appendUTF8(0xFFFD, to: &out) }
                pendingHigh = nil
                if unit >= 0xD800 && unit <= 0xDBFF { pendingHigh = unit } else { appendUTF8(unit, to: &out) }
            } else {
                if pendingHigh != nil { appendUTF8(0xFFFD, to: &out); pendingHigh = nil }
                if byte == 0x22 { return }
                if byte < 0x20 {
                    throw error("control character \(describeFound(byte)) inside a string (write a line "
                                + "break as \\n)", line: cursor.line - (byte == 0x0A ? 1 : 0))
                }
                out.append(byte)
            }
            if out.count - startCount > Self.maxTokenLength {
                throw error("string longer than 1 MiB", line: startLine)
            }
        }
    }

    /// The code unit of the escape after a backslash (a surrogate half for `\uD83D`).
    private func readEscape() throws -> UInt32 {
        let escape = try cursor.next()
        switch escape {
        case 0x22, 0x5C, 0x2F: return UInt32(escape!)       // \" \\ \/
        case 0x62: return 0x08                                // \b
        case 0x66: return 0x0C                                // \f
        case 0x6E: return 0x0A                                // \n
        case 0x72: return 0x0D                                // \r
        case 0x74: return 0x09                                // \t
        case 0x75:                                            // \uXXXX
            var unit: UInt32 = 0
            for _ in 0..<4 {
                let digit = try cursor.next()
                guard let digit, let value = hexValue(digit) else {
                    throw error("expected four hex digits after \\u but found \(describeFound(digit))")
                }
                unit = unit << 4 | value
            }
            return unit
        default:
            throw error("invalid escape \\\(escape.map { String(UnicodeScalar($0)) } ?? "") in a string")
        }
    }

    private func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case 0x30...0x39: return UInt32(byte - 0x30)
        case 0x41...0x46: return UInt32(byte - 0x41 + 10)
        case 0x61...0x66: return UInt32(byte - 0x61 + 10)
        default: return nil
        }
    }

    /// Reads a number (`-?int(.frac)?(e[+-]?exp)?`), appending its literal text to `out`.
    package func readNumber(into out: inout [UInt8]) throws {
        if try cursor.peek() == 0x2D { out.append(try cursor.next()!) }
        if try cursor.peek() == 0x30 {
            out.append(try cursor.next()!)  // a leading 0 stands alone
        } else {
            try readDigits(into: &out, after: "the start of a number")
        }
        if try cursor.peek() == 0x2E {
            out.append(try cursor.next()!)
            try readDigits(into: &out, after: "a decimal point")
        }
        if let byte = try cursor.peek(), byte == 0x65 || byte == 0x45 {
            out.append(try cursor.next()!)
            if let sign = try cursor.peek(), sign == 0x2B || sign == 0x2D { out.append(try cursor.next()!) }
            try readDigits(into: &out, after: "an exponent")
        }
    }

    private func readDigits(into out: inout [UInt8], after what: String) throws {
        let before = out.count
        while let byte = try cursor.peek(), byte >= 0x30 && byte <= 0x39 {
            out.append(try cursor.next()!)
            if out.count - before > Self.maxTokenLength { throw error("number longer than 1 MiB") }
        }
        if out.count == before {
            throw error("expected a digit after \(what) but found \(describeFound(try cursor.peek()))")
        }
    }

    /// Skips one value of any kind (validating it), `depth` levels deep.
    package func skipValue(depth: Int) throws {
        var scratch: [UInt8] = []
        switch try cursor.peek() {
        case 0x22: try readString(into: &scratch)
        case 0x2D, .some(0x30...0x39): try readNumber(into: &scratch)
        case 0x74: try literal("true")
        case 0x66: try literal("false")
        case 0x6E: try literal("null")
        case 0x7B, 0x5B:
            guard depth < Self.maxDepth else { throw error("values nested deeper than \(Self.maxDepth) levels") }
            try skipContainer(depth: depth)
        case let found:
            throw error("expected a value but found \(describeFound(found))")
        }
    }

    /// Consumes `word` (`true`, `false` or `null`) or throws.
    package func literal(_ word: StaticString) throws {
        let line = cursor.line
        guard try cursor.consume(word) else { throw error("expected '\(word)' (true, false or null)", line: line) }
    }

    /// Skips an object or array; the cursor is on its `{` or `[`.
    private func skipContainer(depth: Int) throws {
        let isObject = try cursor.next() == 0x7B
        let close: UInt8 = isObject ? 0x7D : 0x5D
        try cursor.skipWhitespace()
        if try cursor.peek() == close { _ = try cursor.next(); return }
        while true {
            try cursor.skipWhitespace()
            if isObject {
                var key: [UInt8] = []
                try readString(into: &key)
                try cursor.skipWhitespace()
                try expect(0x3A, "':' after an object key")
                try cursor.skipWhitespace()
            }
            try skipValue(depth: depth + 1)
            try cursor.skipWhitespace()
            let found = try cursor.next()
            if found == 0x2C { continue }
            if found == close { return }
            throw error("expected ',' or '\(isObject ? "}" : "]")' but found \(describeFound(found))")
        }
    }
}
