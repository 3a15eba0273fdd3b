/// The JSON of the feed's small files (manifest, installed state): a tree of objects, arrays,
/// strings, integers and booleans, read from bytes in memory with bounded depth and size.
/// Numbers other than integers are refused (the feed never writes them). The compiler's
/// `JSONScanner` streams lists from files and lives in `CallDir`, which an app does not link.
public indirect enum FeedJSON: Sendable, Equatable {
    case object([(String, FeedJSON)])
    case array([FeedJSON])
    case string(String)
    case int(Int64)
    case bool(Bool)
    case null

    public static func == (a: FeedJSON, b: FeedJSON) -> Bool { a.rendered() == b.rendered() }

    public subscript(key: String) -> FeedJSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    // MARK: writing

    public func rendered(indent: Int = 0, pretty: Bool = false) -> String {
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

    static func quote(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 {
                    let h = Array("0123456789abcdef")
                    out += "\\u00" + String(h[Int(scalar.value >> 4)]) + String(h[Int(scalar.value & 15)])
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }

    // MARK: reading

    public static let maxBytes = 1 << 20
    static let maxDepth = 16

    /// Parses `bytes` whole; `name` locates errors ("manifest.json", a URL).
    public static func parse(_ bytes: [UInt8], name: String) throws -> FeedJSON {
        guard bytes.count <= maxBytes else {
            throw FeedError(.manifest, "\(bytes.count) bytes is over the limit of \(maxBytes) for a feed file", path: name)
        }
        var reader = Reader(bytes: bytes, name: name)
        reader.skipSpace()
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.at == bytes.count else { throw reader.fail("unexpected bytes after the JSON value") }
        return value
    }

    struct Reader {
        let bytes: [UInt8]
        let name: String
        var at = 0

        func fail(_ message: String) -> FeedError {
            var line = 1
            for b in bytes[..<min(at, bytes.count)] where b == 0x0A { line += 1 }
            return FeedError(.manifest, "malformed JSON at line \(line) (byte \(at)): " + message, path: name)
        }

        mutating func skipSpace() {
            while at < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[at]) { at += 1 }
        }

        mutating func value(depth: Int) throws -> FeedJSON {
            guard depth < FeedJSON.maxDepth else { throw fail("nested deeper than \(FeedJSON.maxDepth)") }
            guard at < bytes.count else { throw fail("the text ends where a value was expected") }
            switch bytes[at] {
            case 0x7B: return try object(depth: depth)
            case 0x5B: return try array(depth: depth)
            case 0x22: return .string(try string())
            case 0x74: try word("true"); return .bool(true)
            case 0x66: try word("false"); return .bool(false)
            case 0x6E: try word("null"); return .null
            case 0x2D, 0x30...0x39: return .int(try integer())
            default: throw fail("expected a value")
            }
        }

        mutating func word(_ w: String) throws {
            let u = Array(w.utf8)
            guard at + u.count <= bytes.count, Array(bytes[at..<at + u.count]) == u else { throw fail("expected \(w)") }
            at += u.count
        }

        mutating func integer() throws -> Int64 {
            let start = at
            if bytes[at] == 0x2D { at += 1 }
            while at < bytes.count, (0x30...0x39).contains(bytes[at]) { at += 1 }
            if at < bytes.count, [0x2E, 0x65, 0x45].contains(bytes[at]) { throw fail("only integers are allowed") }
            guard let v = Int64(String(decoding: bytes[start..<at], as: UTF8.self)) else { throw fail("integer out of range") }
            return v
        }

        mutating func string() throws -> String {
            at += 1
            var out: [UInt8] = []
            while true {
                guard at < bytes.count else { throw fail("unterminated string") }
                let b = bytes[at]
                at += 1
                if b == 0x22 { break }
                if b < 0x20 { throw fail("control character in a string") }
                guard b == 0x5C else { out.append(b); continue }
                guard at < bytes.count else { throw fail("unterminated escape") }
                let e = bytes[at]
                at += 1
                switch e {
                case 0x22, 0x5C, 0x2F: out.append(e)
                case 0x6E: out.append(0x0A)
                case 0x74: out.append(0x09)
                case 0x72: out.append(0x0D)
                case 0x62: out.append(0x08)
                case 0x66: out.append(0x0C)
                case 0x75:
                    guard at + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[at..<at + 4], as: UTF8.self), radix: 16),
                          let scalar = Unicode.Scalar(v) else { throw fail("bad \\u escape (surrogates are not used by the feed)") }
                    at += 4
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                default: throw fail("bad escape")
                }
            }
            return String(decoding: out, as: UTF8.self)
        }

        mutating func array(depth: Int) throws -> FeedJSON {
            at += 1
            var items: [FeedJSON] = []
            skipSpace()
            if at < bytes.count, bytes[at] == 0x5D { at += 1; return .array(items) }
            while true {
                skipSpace()
                items.append(try value(depth: depth + 1))
                skipSpace()
                guard at < bytes.count else { throw fail("unterminated array") }
                if bytes[at] == 0x2C { at += 1; continue }
                if bytes[at] == 0x5D { at += 1; return .array(items) }
                throw fail("expected ',' or ']'")
            }
        }

        mutating func object(depth: Int) throws -> FeedJSON {
            at += 1
            var members: [(String, FeedJSON)] = []
            skipSpace()
            if at < bytes.count, bytes[at] == 0x7D { at += 1; return .object(members) }
            while true {
                skipSpace()
                guard at < bytes.count, bytes[at] == 0x22 else { throw fail("expected a member name") }
                let key = try string()
                guard !members.contains(where: { $0.0 == key }) else { throw fail("member \"\(key)\" appears twice") }
                skipSpace()
                guard at < bytes.count, bytes[at] == 0x3A else { throw fail("expected ':'") }
                at += 1
                skipSpace()
                members.append((key, try value(depth: depth + 1)))
                skipSpace()
                guard at < bytes.count else { throw fail("unterminated object") }
                if bytes[at] == 0x2C { at += 1; continue }
                if bytes[at] == 0x7D { at += 1; return .object(members) }
                throw fail("expected ',' or '}'")
            }
        }
    }
}
