import NIOCore

/// Splits a `POST /v1/lookup` body into number texts: a JSON array of strings or integers
/// (`["+1 800 555 5555", 14085555555]`), or plain text with one number per line (blank lines
/// skipped, CRLF accepted). The first non-blank byte decides: `[` means JSON.
enum BatchParser {
    enum Failure: Error, Equatable {
        /// Not a JSON array of strings and integers; the message says where it went wrong.
        case malformed(String)
        /// More than the limit; parsing stops at the first number past it.
        case tooMany(limit: Int)
    }

    static func parse(_ body: ByteBuffer, limit: Int) -> Result<[String], Failure> {
        body.withUnsafeReadableBytes { bytes in
            var start = 0
            while start < bytes.count, isBlank(bytes[start]) { start += 1 }
            if start < bytes.count, bytes[start] == UInt8(ascii: "[") {
                var parser = JSONArrayParser(bytes: bytes, at: start + 1, limit: limit)
                return parser.parse()
            }
            return parseLines(bytes, limit: limit)
        }
    }

    private static func parseLines(_ bytes: UnsafeRawBufferPointer, limit: Int) -> Result<[String], Failure> {
        var numbers: [String] = []
        var lineStart = 0
        for i in 0...bytes.count where i == bytes.count || bytes[i] == UInt8(ascii: "\n") {
            var a = lineStart, b = i
            lineStart = i + 1
            while a < b, isBlank(bytes[a]) { a += 1 }
            while b > a, isBlank(bytes[b - 1]) { b -= 1 }
            if a == b { continue }
            if numbers.count == limit { return .failure(.tooMany(limit: limit)) }
            numbers.append(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[a..<b]), as: UTF8.self))
        }
        return .success(numbers)
    }

    @inline(__always)
    static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n")
    }
}

/// A strict parser for the one JSON shape a batch may have: an array of strings and numbers.
private struct JSONArrayParser {
    let bytes: UnsafeRawBufferPointer
    var at: Int
    let limit: Int

    init(bytes: UnsafeRawBufferPointer, at: Int, limit: Int) {
        self.bytes = bytes
        self.at = at
        self.limit = limit
    }

    mutating func parse() -> Result<[String], BatchParser.Failure> {
        var numbers: [String] = []
        skipBlanks()
        if peek == UInt8(ascii: "]") {
            at += 1
            return finish(numbers)
        }
        while true {
            skipBlanks()
            if numbers.count == limit { return .failure(.tooMany(limit: limit)) }
            switch peek ?? 0 {
            case UInt8(ascii: "\""):
                guard let text = string() else { return .failure(.malformed("bad string at byte \(at)")) }
                numbers.append(text)
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
                numbers.append(numberLiteral())
            default:
                return .failure(.malformed("expected a string or a number at byte \(at)"))
            }
            skipBlanks()
            switch peek ?? 0 {
            case UInt8(ascii: ","): at += 1
            case UInt8(ascii: "]"):
                at += 1
                return finish(numbers)
            default: return .failure(.malformed("expected ',' or ']' at byte \(at)"))
            }
        }
    }

    private mutating func finish(_ numbers: [String]) -> Result<[String], BatchParser.Failure> {
        skipBlanks()
        return at == bytes.count ? .success(numbers) : .failure(.malformed("unexpected data after the array at byte \(at)"))
    }

    private var peek: UInt8? { at < bytes.count ? bytes[at] : nil }

    private mutating func skipBlanks() {
        while at < bytes.count, BatchParser.isBlank(bytes[at]) { at += 1 }
    }

    /// A JSON number token, kept as text: the normaliser decides whether it is a phone number.
    private mutating func numberLiteral() -> String {
        let start = at
        while at < bytes.count, isNumberByte(bytes[at]) { at += 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
    }

    private func isNumberByte(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "-") || b == UInt8(ascii: "+")
            || b == UInt8(ascii: ".") || b == UInt8(ascii: "e") || b == UInt8(ascii: "E")
    }

    /// A string literal starting at the opening quote; nil when malformed.
    private mutating func string() -> String? {
        at += 1
        let start = at
        while at < bytes.count, bytes[at] != UInt8(ascii: "\""), bytes[at] != UInt8(ascii: "\\"), bytes[at] >= 0x20 { at += 1 }
        guard at < bytes.count else { return nil }
        if bytes[at] == UInt8(ascii: "\"") {  // the usual case: no escapes
            defer { at += 1 }
            return String(validating: UnsafeRawBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
        }
        var out = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<at]))
        while at < bytes.count {
            let b = bytes[at]
            at += 1
            switch b {
            case UInt8(ascii: "\""): return String(validating: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard at < bytes.count else { return nil }
                let e = bytes[at]
                at += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(8)
                case UInt8(ascii: "f"): out.append(12)
                case UInt8(ascii: "n"): out.append(10)
                case UInt8(ascii: "r"): out.append(13)
                case UInt8(ascii: "t"): out.append(9)
                case UInt8(ascii: "u"):
                    guard let scalar = unicodeEscape() else { return nil }
                    out.append(contentsOf: String(Character(scalar)).utf8)
                default: return nil
                }
            case 0..<0x20: return nil
            default: out.append(b)
            }
        }
        return nil
    }

    /// The 4 hex digits after `\u` (and a following low surrogate when needed).
    private mutating func unicodeEscape() -> Unicode.Scalar? {
        guard let high = hex4() else { return nil }
        if (0xD800..<0xDC00).contains(high) {
            guard at + 1 < bytes.count, bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u") else { return nil }
            at += 2
            guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        }
        return Unicode.Scalar(high)
    }

    private mutating func hex4() -> UInt32? {
        guard at + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Character(Unicode.Scalar(bytes[at])).hexDigitValue else { return nil }
            value = value << 4 | UInt32(digit)
            at += 1
        }
        return value
    }
}
