/// A JSON value: the one tree of calldir's JSON. The compiler's and the CLI's reports are built
/// as one and rendered; the feed's small files (manifest, installed state, rotation
/// statements) are built, rendered and read back as one (`parse`). Tokens are read by
/// `JSONScanner` and strings escaped by `JSONWriter`, so every JSON calldir prints agrees on
/// escaping. Lookup answers skip the tree: they are written straight through `JSONWriter`.
/// It lives beside the scanner and the writer so the feed (a phone module, which must not
/// link the compiler) and the compiler share it.
package indirect enum JSONValue: Sendable, Equatable {
    /// An object, members in order.
    case object([(String, JSONValue)])
    /// An array.
    case array([JSONValue])
    /// A string.
    case string(String)
    /// An integer.
    case int(Int64)
    /// A number with a fraction or an exponent; not finite renders as `null`.
    case double(Double)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null

    package static func == (a: JSONValue, b: JSONValue) -> Bool { a.rendered() == b.rendered() }

    /// An object's member `key`, nil when absent or not an object.
    package subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

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
                JSONValue.quote(key, into: &out)
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
        case .string(let s): JSONValue.quote(s, into: &out)
        case .int(let v): out += String(v)
        case .double(let v): out += v.isFinite ? String(v) : "null"
        case .bool(let b): out += b ? "true" : "false"
        case .null: out += "null"
        }
    }

    /// `s` as a JSON string, through `JSONWriter`: the one escaping rule of calldir's JSON.
    package static func quote(_ s: String, into out: inout String) {
        var bytes: [UInt8] = []
        bytes.appendJSON(maxBytes: JSONWriter.stringBound(s)) { $0.string(s) }
        out += String(decoding: bytes, as: UTF8.self)
    }
}
