import CallDirReader

/// The JSON of the feed's small files (manifest, installed state): a tree of objects, arrays,
/// strings, integers and booleans. A thin layer over the reader's JSON core, the one JSON
/// reader and writer of calldir: tokens are read by `JSONScanner` and strings written by
/// `JSONWriter`; the feed adds its own rules (bounded size and depth, integers only, no
/// member named twice).
package indirect enum FeedJSON: Sendable, Equatable {
    /// An object, members in order.
    case object([(String, FeedJSON)])
    /// An array.
    case array([FeedJSON])
    /// A string.
    case string(String)
    /// An integer (the feed writes no other numbers).
    case int(Int64)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null

    package static func == (a: FeedJSON, b: FeedJSON) -> Bool { a.rendered() == b.rendered() }

    /// An object's member `key`, nil when absent or not an object.
    package subscript(key: String) -> FeedJSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    // MARK: writing

    /// The JSON text, compact or `pretty` (two-space indents from `indent`).
    package func rendered(indent: Int = 0, pretty: Bool = false) -> String {
        var out = ""
        render(into: &out, indent: indent, pretty: pretty)
        return out
    }

    private func render(into out: inout String, indent: Int, pretty: Bool) {
        let pad = pretty ? "\n" + String(repeating: "  ", count: indent + 1) : ""
        let close = pretty ? "\n" + String(repeating: "  ", count: indent) : ""
        switch self {
        case .object(let members):
            if members.isEmpty { out += "{}"; return }
            out += "{"
            for (i, (key, value)) in members.enumerated() {
                out += (i > 0 ? "," : "") + pad
                FeedJSON.quote(key, into: &out)
                out += pretty ? ": " : ":"
                value.render(into: &out, indent: indent + 1, pretty: pretty)
            }
            out += close + "}"
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "["
            for (i, item) in items.enumerated() {
                out += (i > 0 ? "," : "") + pad
                item.render(into: &out, indent: indent + 1, pretty: pretty)
            }
            out += close + "]"
        case .string(let s): FeedJSON.quote(s, into: &out)
        case .int(let v): out += String(v)
        case .bool(let b): out += b ? "true" : "false"
        case .null: out += "null"
        }
    }

    /// Through `JSONWriter`, the one escaping rule of calldir's JSON.
    static func quote(_ s: String, into out: inout String) {
        var bytes: [UInt8] = []
        bytes.appendJSON(maxBytes: JSONWriter.stringBound(s)) { $0.string(s) }
        out += String(decoding: bytes, as: UTF8.self)
    }

    // MARK: reading

    /// The largest feed file read (1 MiB).
    package static let maxBytes = 1 << 20
    static let maxDepth = 16

    /// Parses `bytes` whole; `name` locates errors ("manifest.json", a URL).
    package static func parse(_ bytes: [UInt8], name: String) throws -> FeedJSON {
        guard bytes.count <= maxBytes else {
            throw FeedError(.manifest, "\(bytes.count) bytes is over the limit of \(maxBytes) for a feed file", path: name)
        }
        return try bytes.withUnsafeBytes { memory in
            let reader = Reader(scanner: JSONScanner(cursor: ByteCursor(memory: memory, name: name)))
            do {
                try reader.cursor.skipWhitespace()
                let value = try reader.value(depth: 0)
                try reader.cursor.skipWhitespace()
                if let extra = try reader.cursor.peek() {
                    throw reader.scanner.error("unexpected \(describeFound(extra)) after the JSON value")
                }
                return value
            } catch let error as CallDirError {
                let at = reader.cursor.memoryOffset.map { " (byte \($0))" } ?? ""
                let reason = error.message.hasPrefix("malformed JSON: ") ? error.message.dropFirst(16) : Substring(error.message)
                throw FeedError(.manifest, "malformed JSON at line \(error.line ?? reader.cursor.line)\(at): \(reason)", path: name)
            }
        }
    }

    /// The tree over the scanner's tokens; every error is the scanner's (line and what was found).
    private struct Reader {
        let scanner: JSONScanner
        var cursor: ByteCursor { scanner.cursor }

        func value(depth: Int) throws -> FeedJSON {
            guard depth < FeedJSON.maxDepth else { throw scanner.error("nested deeper than \(FeedJSON.maxDepth)") }
            switch try cursor.peek() {
            case 0x7B: return try object(depth: depth)
            case 0x5B: return try array(depth: depth)
            case 0x22: return .string(try string())
            case 0x74: try scanner.literal("true"); return .bool(true)
            case 0x66: try scanner.literal("false"); return .bool(false)
            case 0x6E: try scanner.literal("null"); return .null
            case 0x2D, .some(0x30...0x39): return .int(try integer())
            case let found: throw scanner.error("expected a value but found \(describeFound(found))")
            }
        }

        /// An RFC 8259 number that is an integer in Int64's range (the feed writes no others).
        func integer() throws -> Int64 {
            var text: [UInt8] = []
            try scanner.readNumber(into: &text)
            guard !text.contains(where: { $0 == 0x2E || $0 == 0x65 || $0 == 0x45 }) else {
                throw scanner.error("only integers are allowed")
            }
            guard let value = Int64(String(decoding: text, as: UTF8.self)) else { throw scanner.error("integer out of range") }
            return value
        }

        func string() throws -> String {
            var text: [UInt8] = []
            try scanner.readString(into: &text)
            return String(decoding: text, as: UTF8.self)
        }

        func array(depth: Int) throws -> FeedJSON {
            var items: [FeedJSON] = []
            try elements(close: 0x5D) { items.append(try value(depth: depth + 1)) }
            return .array(items)
        }

        func object(depth: Int) throws -> FeedJSON {
            var members: [(String, FeedJSON)] = []
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
}
