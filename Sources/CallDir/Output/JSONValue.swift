import CallDirReader

/// A minimal JSON value and writer, so the CLI and the daemon print the same shapes without
/// pulling Foundation into the core.
package enum JSONValue: Sendable, Equatable {
    case object([(String, JSONValue)])
    case array([JSONValue])
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case null

    package static func == (a: JSONValue, b: JSONValue) -> Bool { a.rendered() == b.rendered() }

    package func rendered() -> String {
        var out = ""
        render(into: &out)
        return out
    }

    package func render(into out: inout String) {
        switch self {
        case .object(let members):
            out += "{"
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { out += "," }
                JSONValue.quote(key, into: &out)
                out += ":"
                value.render(into: &out)
            }
            out += "}"
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.render(into: &out)
            }
            out += "]"
        case .string(let s): JSONValue.quote(s, into: &out)
        case .int(let v): out += String(v)
        case .double(let v): out += v.isFinite ? String(v) : "null"
        case .bool(let v): out += v ? "true" : "false"
        case .null: out += "null"
        }
    }

    /// Through `JSONWriter`, the one escaping rule of calldir's JSON.
    static func quote(_ s: String, into out: inout String) {
        var bytes: [UInt8] = []
        bytes.appendJSON(maxBytes: JSONWriter.stringBound(s)) { $0.string(s) }
        out += String(decoding: bytes, as: UTF8.self)
    }
}
