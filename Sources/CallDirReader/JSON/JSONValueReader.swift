extension JSONValue {
    /// What a reader of a whole document refuses besides malformed JSON.
    package struct ReadRules: Sendable {
        /// Containers nested deeper than this are refused (the reader recurses).
        package var maxDepth: Int
        /// Numbers with a fraction or an exponent are refused (the feed writes none).
        package var integersOnly: Bool

        package init(maxDepth: Int = 64, integersOnly: Bool = false) {
            self.maxDepth = maxDepth
            self.integersOnly = integersOnly
        }
    }

    /// Reads the document in `memory`, whole: one value and nothing after it. Refuses a member
    /// named twice (which of the two a reader keeps is undefined, RFC 8259 section 4). Errors
    /// are the scanner's `CallDirError`s (line, what was found); `cursor` tells the caller how
    /// far it got.
    package static func parse(_ cursor: ByteCursor, rules: ReadRules = ReadRules()) throws -> JSONValue {
        let reader = TreeReader(scanner: JSONScanner(cursor: cursor), rules: rules)
        try cursor.skipWhitespace()
        let value = try reader.value(depth: 0)
        try cursor.skipWhitespace()
        if let extra = try cursor.peek() {
            throw reader.scanner.error("unexpected \(describeFound(extra)) after the JSON value")
        }
        return value
    }
}

/// The tree over the scanner's tokens; every error is the scanner's (line and what was found).
private struct TreeReader {
    let scanner: JSONScanner
    let rules: JSONValue.ReadRules
    var cursor: ByteCursor { scanner.cursor }

    func value(depth: Int) throws -> JSONValue {
        guard depth < rules.maxDepth else { throw scanner.error("nested deeper than \(rules.maxDepth)") }
        switch try cursor.peek() {
        case 0x7B: return try object(depth: depth)
        case 0x5B: return try array(depth: depth)
        case 0x22: return .string(try string())
        case 0x74: try scanner.literal("true"); return .bool(true)
        case 0x66: try scanner.literal("false"); return .bool(false)
        case 0x6E: try scanner.literal("null"); return .null
        case 0x2D, .some(0x30...0x39): return try number()
        case let found: throw scanner.error("expected a value but found \(describeFound(found))")
        }
    }

    /// An RFC 8259 number: `.int` when it is an integer in Int64's range, else `.double`.
    func number() throws -> JSONValue {
        var text: [UInt8] = []
        try scanner.readNumber(into: &text)
        let literal = String(decoding: text, as: UTF8.self)
        if !text.contains(where: { $0 == 0x2E || $0 == 0x65 || $0 == 0x45 }) {
            if let value = Int64(literal) { return .int(value) }
            if rules.integersOnly { throw scanner.error("integer out of range") }
        } else if rules.integersOnly {
            throw scanner.error("only integers are allowed")
        }
        guard let value = Double(literal) else { throw scanner.error("number out of range") }
        return .double(value)
    }

    func string() throws -> String {
        var text: [UInt8] = []
        try scanner.readString(into: &text)
        return String(decoding: text, as: UTF8.self)
    }

    func array(depth: Int) throws -> JSONValue {
        var items: [JSONValue] = []
        try elements(close: 0x5D) { items.append(try value(depth: depth + 1)) }
        return .array(items)
    }

    func object(depth: Int) throws -> JSONValue {
        var members: [(String, JSONValue)] = []
        try elements(close: 0x7D) {
            guard try cursor.peek() == 0x22 else {
                throw scanner.error("expected a member name but found \(describeFound(try cursor.peek()))")
            }
            let key = try string()
            guard !members.contains(where: { $0.0 == key }) else { throw scanner.error("member \"\(key)\" appears twice") }
            try cursor.skipWhitespace()
            try scanner.expect(0x3A, "':' after a member name")
            try cursor.skipWhitespace()
            members.append((key, try value(depth: depth + 1)))
        }
        return .object(members)
    }

    /// The elements of the container the cursor is on (its opening byte), each read by
    /// `element`, separated by commas, up to `close`.
    private func elements(close: UInt8, _ element: () throws -> Void) throws {
        _ = try cursor.next()
        try cursor.skipWhitespace()
        if try cursor.peek() == close { _ = try cursor.next(); return }
        while true {
            try cursor.skipWhitespace()
            try element()
            try cursor.skipWhitespace()
            let found = try cursor.next()
            if found == 0x2C { continue }
            if found == close { return }
            throw scanner.error("expected ',' or '\(Character(Unicode.Scalar(close)))' but found \(describeFound(found))")
        }
    }
}
