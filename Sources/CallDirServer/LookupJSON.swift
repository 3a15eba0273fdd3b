import CallDir
import NIOCore

/// Writes the daemon's JSON straight into a ByteBuffer: no intermediate `JSONValue` tree or
/// String per answer, which is most of a batch's cost. The members are exactly those of
/// `LookupResult.json` (the shape `calldir lookup --json` prints), in the same order; a test
/// checks the two byte for byte.
extension ByteBuffer {
    /// A JSON string literal, escaped like `JSONValue` does.
    mutating func writeJSONString(_ text: String) {
        writeInteger(UInt8(ascii: "\""))
        var needsEscape = false
        for byte in text.utf8 where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            needsEscape = true
            break
        }
        if !needsEscape {
            writeString(text)
        } else {
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "\""): writeStaticString("\\\"")
                case UInt8(ascii: "\\"): writeStaticString("\\\\")
                case UInt8(ascii: "\n"): writeStaticString("\\n")
                case UInt8(ascii: "\r"): writeStaticString("\\r")
                case UInt8(ascii: "\t"): writeStaticString("\\t")
                case 0..<0x20:
                    let digits: StaticString = "0123456789abcdef"
                    writeStaticString("\\u00")
                    writeInteger(digits.utf8Start[Int(byte >> 4)])
                    writeInteger(digits.utf8Start[Int(byte & 15)])
                default: writeInteger(byte)
                }
            }
        }
        writeInteger(UInt8(ascii: "\""))
    }

    mutating func writeDecimal(_ value: Int64) { writeString(String(value)) }

    /// `"first":..,"last":..` wrapped in braces, as `NumberRange.json`.
    private mutating func writeRange(_ range: NumberRange) {
        writeStaticString("{\"first\":")
        writeDecimal(range.first)
        writeStaticString(",\"last\":")
        writeDecimal(range.last)
        writeInteger(UInt8(ascii: "}"))
    }

    /// The members of `LookupResult.json`, without the enclosing braces.
    mutating func writeLookupMembers(_ result: LookupResult) {
        writeStaticString("\"number\":\"+")
        writeDecimal(result.number)
        writeStaticString("\",\"e164\":")
        writeDecimal(result.number)
        switch result.action {
        case "block": writeStaticString(",\"action\":\"block\"")
        case "identify": writeStaticString(",\"action\":\"identify\"")
        default: writeStaticString(",\"action\":\"allow\"")
        }
        if let blocked = result.blocked {
            writeStaticString(blocked == .exact ? ",\"blocked\":true,\"blockedMatch\":\"exact\""
                                                : ",\"blocked\":true,\"blockedMatch\":\"range\"")
        } else {
            writeStaticString(",\"blocked\":false")
        }
        if let range = result.blockedRange {
            writeStaticString(",\"blockedRange\":")
            writeRange(range)
        }
        writeStaticString(",\"label\":")
        if let label = result.label { writeJSONString(label) } else { writeStaticString("null") }
        if let match = result.labelMatch {
            writeStaticString(match == .exact ? ",\"labelMatch\":\"exact\"" : ",\"labelMatch\":\"range\"")
        }
        if let range = result.labelRange {
            writeStaticString(",\"labelRange\":")
            writeRange(range)
        }
    }

    /// `{"checksum":"...","buildTime":N|null}`: which index answered.
    mutating func writeIndexIdentity(_ loaded: LoadedIndex) {
        writeStaticString("{\"checksum\":\"")
        writeString(loaded.checksum)
        writeStaticString("\",\"buildTime\":")
        if loaded.buildTime > 0 { writeDecimal(loaded.buildTime) } else { writeStaticString("null") }
        writeInteger(UInt8(ascii: "}"))
    }

    /// `{"error":code,"message":...}` plus optional members before the message.
    mutating func writeError(_ code: String, _ message: String, extra: [(String, String)] = []) {
        writeStaticString("{\"error\":")
        writeJSONString(code)
        for (key, value) in extra {
            writeInteger(UInt8(ascii: ","))
            writeJSONString(key)
            writeInteger(UInt8(ascii: ":"))
            writeJSONString(value)
        }
        writeStaticString(",\"message\":")
        writeJSONString(message)
        writeInteger(UInt8(ascii: "}"))
    }
}
