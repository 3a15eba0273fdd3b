import CallDirReader

/// An element tag seen by `XMLScanner`.
struct XMLTag {
    var name: [UInt8] = []
    /// `</name>`.
    var isEnd = false
    /// `<name/>`.
    var isEmpty = false
    /// Line of the tag's `<`.
    var line = 0

    func `is`(_ literal: StaticString) -> Bool {
        name.elementsEqual(UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    var display: String {
        let text = String(decoding: name, as: UTF8.self)
        return isEnd ? "</\(text)>" : (isEmpty ? "<\(text)/>" : "<\(text)>")
    }
}

/// Just enough streaming XML for Apple XML property lists: element tags (attributes skipped),
/// character data with entities (`&amp; &lt; &gt; &quot; &apos; &#NN; &#xNN;`) and CDATA
/// sections decoded; the XML declaration, DOCTYPE and comments skipped.
final class XMLScanner {
    static let maxTextLength = 1 << 20

    let cursor: ByteCursor
    /// Set when `readText` stopped on a tag's `<` (already consumed): the line of that `<`.
    private var openBracketLine: Int?

    init(cursor: ByteCursor) { self.cursor = cursor }

    func error(_ message: String, line: Int? = nil) -> CallDirError {
        CallDirError(.badInput, "malformed plist: " + message, path: cursor.name, line: line ?? cursor.line)
    }

    /// The next element tag, skipping text, comments, declarations; false at end of input.
    func nextTag(_ tag: inout XMLTag) throws -> Bool {
        while true {
            let line: Int
            if let pending = openBracketLine {
                line = pending
                openBracketLine = nil
            } else {
                while let byte = try cursor.peek(), byte != 0x3C { _ = try cursor.next() }
                guard try cursor.peek() != nil else { return false }
                line = cursor.line
                _ = try cursor.next()
            }
            if try readTagBody(&tag, line: line) { return true }
        }
    }

    /// After `<`: reads an element tag (true) or skips `<?...?>`, `<!...>` (false).
    private func readTagBody(_ tag: inout XMLTag, line: Int) throws -> Bool {
        switch try cursor.peek() {
        case 0x3F:  // <? ... ?>
            try skip(past: "?>", what: "processing instruction", line: line)
            return false
        case 0x21:  // <!-- -->, <![CDATA[ ]]> outside values, <!DOCTYPE ...>
            _ = try cursor.next()
            if try cursor.peek() == 0x2D {
                try skipComment(line: line)
            } else if try cursor.peek() == 0x5B {
                try skip(past: "]]>", what: "CDATA section", line: line)
            } else {
                try skipDeclaration(line: line)
            }
            return false
        default:
            tag.line = line
            tag.isEnd = try cursor.peek() == 0x2F
            if tag.isEnd { _ = try cursor.next() }
            tag.name.removeAll(keepingCapacity: true)
            while let byte = try cursor.peek(), !Self.endsName(byte) {
                tag.name.append(try cursor.next()!)
                if tag.name.count > 256 { throw error("element name longer than 256 bytes", line: line) }
            }
            if tag.name.isEmpty { throw error("expected an element name after '<'", line: line) }
            tag.isEmpty = try skipAttributes(line: line)
            return true
        }
    }

    private static func endsName(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x2F || byte == 0x3E
    }

    /// Skips to the tag's `>`; true if it was `/>`.
    private func skipAttributes(line: Int) throws -> Bool {
        var previous: UInt8 = 0
        while let byte = try cursor.next() {
            if byte == 0x22 || byte == 0x27 {  // quoted attribute value
                while let inner = try cursor.next(), inner != byte {}
            } else if byte == 0x3E {
                return previous == 0x2F
            }
            previous = byte
        }
        throw error("the file ends inside a tag", line: line)
    }

    private func skipComment(line: Int) throws {
        guard try cursor.consume("--") else { throw error("expected '<!--'", line: line) }
        try skip(past: "-->", what: "comment", line: line)
    }

    /// `<!DOCTYPE ...>`, including an internal subset in brackets.
    private func skipDeclaration(line: Int) throws {
        var depth = 0
        while let byte = try cursor.next() {
            if byte == 0x5B { depth += 1 }
            if byte == 0x5D { depth -= 1 }
            if byte == 0x3E && depth <= 0 { return }
        }
        throw error("the file ends inside a <!...> declaration", line: line)
    }

    /// Consumes input up to and including `terminator` (at most 4 bytes).
    private func skip(past terminator: StaticString, what: String, line: Int) throws {
        let (pattern, mask) = Self.packed(terminator)
        var window: UInt32 = 0
        var seen = 0
        while let byte = try cursor.next() {
            window = window << 8 | UInt32(byte)
            seen += 1
            if seen >= terminator.utf8CodeUnitCount && window & mask == pattern { return }
        }
        throw error("the file ends inside a \(what)", line: line)
    }

    /// The last bytes of input as one integer, for matching short terminators.
    private static func packed(_ terminator: StaticString) -> (pattern: UInt32, mask: UInt32) {
        var pattern: UInt32 = 0
        var mask: UInt32 = 0
        for index in 0..<terminator.utf8CodeUnitCount {
            pattern = pattern << 8 | UInt32(terminator.utf8Start[index])
            mask = mask << 8 | 0xFF
        }
        return (pattern, mask)
    }

    /// Appends the decoded character data up to the next tag to `out` (nil: discard).
    func readText(into out: inout [UInt8]) throws {
        let startLine = cursor.line
        let startCount = out.count
        while let byte = try cursor.next() {
            if byte == 0x3C {
                let line = cursor.line
                if try cursor.peek() != 0x21 { openBracketLine = line; return }
                _ = try cursor.next()
                if try cursor.peek() == 0x2D {
                    try skipComment(line: line)
                } else if try cursor.consume("[CDATA[") {
                    try copyCDATA(into: &out, line: line)
                } else {
                    throw error("expected '<![CDATA[' or '<!--' inside a value", line: line)
                }
            } else if byte == 0x26 {
                try decodeEntity(into: &out)
            } else {
                out.append(byte)
            }
            if out.count - startCount > Self.maxTextLength {
                throw error("value longer than 1 MiB", line: startLine)
            }
        }
        throw error("the file ends inside a value", line: startLine)
    }

    private func copyCDATA(into out: inout [UInt8], line: Int) throws {
        let (pattern, mask) = Self.packed("]]>")
        var window: UInt32 = 0
        var copied = 0
        while let byte = try cursor.next() {
            window = window << 8 | UInt32(byte)
            if copied >= 2 && window & mask == pattern {
                out.removeLast(2)  // the "]]" already copied
                return
            }
            out.append(byte)
            copied += 1
        }
        throw error("the file ends inside a CDATA section", line: line)
    }

    /// After `&`: decodes one entity reference.
    private func decodeEntity(into out: inout [UInt8]) throws {
        var name: [UInt8] = []
        while let byte = try cursor.next(), byte != 0x3B {
            name.append(byte)
            if name.count > 10 { throw error("unterminated entity '&\(String(decoding: name, as: UTF8.self))'") }
        }
        let text = String(decoding: name, as: UTF8.self)
        switch text {
        case "amp": out.append(0x26)
        case "lt": out.append(0x3C)
        case "gt": out.append(0x3E)
        case "quot": out.append(0x22)
        case "apos": out.append(0x27)
        default:
            guard let scalar = Self.characterReference(text) else {
                throw error("unknown entity '&\(text);' (a literal '&' must be written '&amp;')")
            }
            appendUTF8(scalar, to: &out)
        }
    }

    /// The scalar of `#NN` or `#xNN`, nil if invalid.
    private static func characterReference(_ text: String) -> UInt32? {
        guard text.hasPrefix("#") else { return nil }
        let digits = text.dropFirst()
        let value = digits.first == "x" || digits.first == "X"
            ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
        guard let value, value != 0, Unicode.Scalar(value) != nil else { return nil }
        return value
    }
}
