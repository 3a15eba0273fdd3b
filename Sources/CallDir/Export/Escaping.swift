/// The one escaping rule of the export formats (CSV, vCard, Begone's XML, Live Caller ID's
/// text protobuf): by UTF-8 bytes, never by `Character`. A `"` or `\` followed by a combining
/// mark, a zero-width joiner or a variation selector is one `Character` that is not equal to
/// `"`, so a per-Character comparison lets it through unescaped; compared byte by byte, the
/// quote is found. Every character these formats escape is ASCII, and an ASCII byte never
/// occurs inside a multi-byte UTF-8 sequence, so replacing bytes is exact. (JSON has its own
/// byte-wise writer, `JSONWriter`.)
enum Escaping {
    /// `text` with every byte that `replacement` maps replaced by its text, others copied.
    static func escaped(_ text: String, _ replacement: (UInt8) -> StaticString?) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 8)
        for byte in text.utf8 {
            if let text = replacement(byte) {
                text.withUTF8Buffer { out.append(contentsOf: $0) }
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `text` holds any of `bytes` (ASCII).
    static func contains(_ text: String, anyOf bytes: StaticString) -> Bool {
        bytes.withUTF8Buffer { set in text.utf8.contains { set.contains($0) } }
    }

    /// A CSV field as `CSVLine` and RFC 4180 readers read it back: quoted (with `""` for `"`)
    /// when it holds a comma, a quote, a line break (a reader's labels never do: defence in
    /// depth), or begins or ends with a space byte.
    static func csvField(_ text: String) -> String {
        let needsQuotes = contains(text, anyOf: ",\"\n\r") || text.utf8.first == 0x20 || text.utf8.last == 0x20
        guard needsQuotes else { return text }
        return "\"" + escaped(text) { $0 == UInt8(ascii: "\"") ? "\"\"" : nil } + "\""
    }

    /// A vCard text value with `\\`, `\,`, `\;` and `\n` escapes (RFC 6350 3.4; a CR is dropped).
    static func vCardText(_ text: String) -> String {
        escaped(text) {
            switch $0 {
            case UInt8(ascii: "\\"): return "\\\\"
            case UInt8(ascii: ","): return "\\,"
            case UInt8(ascii: ";"): return "\\;"
            case UInt8(ascii: "\n"): return "\\n"
            case UInt8(ascii: "\r"): return ""
            default: return nil
            }
        }
    }

    /// XML character data, as `XMLScanner` and plist readers decode it back.
    static func xmlText(_ text: String) -> String {
        escaped(text) {
            switch $0 {
            case UInt8(ascii: "&"): return "&amp;"
            case UInt8(ascii: "<"): return "&lt;"
            case UInt8(ascii: ">"): return "&gt;"
            default: return nil
            }
        }
    }

    /// A protobuf text-format string: UTF-8 as is, `"`, `\` and line breaks escaped (a
    /// reader's labels hold no control characters: defence in depth).
    static func protobufTextQuoted(_ text: String) -> String {
        "\"" + escaped(text) {
            switch $0 {
            case UInt8(ascii: "\""): return "\\\""
            case UInt8(ascii: "\\"): return "\\\\"
            case UInt8(ascii: "\n"): return "\\n"
            case UInt8(ascii: "\r"): return "\\r"
            default: return nil
            }
        } + "\""
    }
}
