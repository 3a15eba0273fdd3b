import CallDir
import NIOCore
import CallDirReader

/// Writes the daemon's JSON straight into a ByteBuffer's memory: no `JSONValue` tree, no String
/// per answer, one capacity check per answer rather than per field (measured with callgrind:
/// per-field ByteBuffer writes cost more than the lookup itself). The members are exactly those
/// of `LookupResult.json` (what `calldir lookup --json` prints), in the same order; a test
/// checks the two byte for byte.
struct RawWriter {
    private let base: UnsafeMutableRawPointer
    private(set) var count = 0

    init(_ base: UnsafeMutableRawPointer) { self.base = base }

    /// The most bytes `jsonString` can write for `text`: every byte escaped as \u00XX.
    static func jsonBound(_ text: String) -> Int { 2 + 6 * text.utf8.count }
    /// The most bytes `lookupMembers` can write.
    static func lookupBound(_ result: LookupResult) -> Int { 400 + jsonBound(result.label ?? "") }

    @inline(__always)
    mutating func byte(_ value: UInt8) {
        base.storeBytes(of: value, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    @inline(__always)
    mutating func text(_ literal: StaticString) {
        (base + count).copyMemory(from: literal.utf8Start, byteCount: literal.utf8CodeUnitCount)
        count += literal.utf8CodeUnitCount
    }

    mutating func bytes(_ raw: UnsafeRawBufferPointer) {
        guard let source = raw.baseAddress else { return }
        (base + count).copyMemory(from: source, byteCount: raw.count)
        count += raw.count
    }

    mutating func decimal(_ value: Int64) {
        if value < 0 { byte(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var scratch: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits
        withUnsafeMutableBytes(of: &scratch) { digits in
            var at = digits.count
            repeat {
                at -= 1
                digits[at] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes(UnsafeRawBufferPointer(rebasing: digits[at...]))
        }
    }

    /// A JSON string literal, escaped exactly as `JSONValue` does.
    mutating func jsonString(_ value: String) {
        byte(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var clean = 0  // start of the run not yet copied
            for (i, b) in utf8.enumerated() where b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") {
                bytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: utf8[clean..<i])))
                clean = i + 1
                switch b {
                case UInt8(ascii: "\""): text("\\\"")
                case UInt8(ascii: "\\"): text("\\\\")
                case UInt8(ascii: "\n"): text("\\n")
                case UInt8(ascii: "\r"): text("\\r")
                case UInt8(ascii: "\t"): text("\\t")
                default:
                    let hex: StaticString = "0123456789abcdef"
                    text("\\u00")
                    byte(hex.utf8Start[Int(b >> 4)])
                    byte(hex.utf8Start[Int(b & 15)])
                }
            }
            bytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: utf8[clean...])))
        }
        byte(UInt8(ascii: "\""))
    }

    /// `{"first":..,"last":..}`, as `NumberRange.json`.
    private mutating func range(_ range: NumberRange) {
        text("{\"first\":")
        decimal(range.first)
        text(",\"last\":")
        decimal(range.last)
        byte(UInt8(ascii: "}"))
    }

    /// The members of `LookupResult.json`, without the enclosing braces.
    mutating func lookupMembers(_ result: LookupResult) {
        text("\"number\":\"+")
        decimal(result.number)
        text("\",\"e164\":")
        decimal(result.number)
        if result.blocked != nil {
            text(",\"action\":\"block\"")
        } else if result.label != nil {
            text(",\"action\":\"identify\"")
        } else {
            text(",\"action\":\"allow\"")
        }
        switch result.blocked {
        case .exact?: text(",\"blocked\":true,\"blockedMatch\":\"exact\"")
        case .range?: text(",\"blocked\":true,\"blockedMatch\":\"range\"")
        case nil: text(",\"blocked\":false")
        }
        if let blockedRange = result.blockedRange {
            text(",\"blockedRange\":")
            range(blockedRange)
        }
        text(",\"label\":")
        if let label = result.label { jsonString(label) } else { text("null") }
        switch result.labelMatch {
        case .exact?: text(",\"labelMatch\":\"exact\"")
        case .range?: text(",\"labelMatch\":\"range\"")
        case nil: break
        }
        if let labelRange = result.labelRange {
            text(",\"labelRange\":")
            range(labelRange)
        }
    }
}

extension ByteBuffer {
    /// Reserves `maxBytes`, lets `body` write at most that many, and keeps what it wrote.
    @inline(__always)
    mutating func writeRaw(maxBytes: Int, _ body: (inout RawWriter) -> Void) {
        writeWithUnsafeMutableBytes(minimumWritableBytes: maxBytes) { memory in
            var writer = RawWriter(memory.baseAddress!)
            body(&writer)
            precondition(writer.count <= maxBytes, "RawWriter overran its bound")
            return writer.count
        }
    }

    mutating func writeJSONString(_ text: String) {
        writeRaw(maxBytes: RawWriter.jsonBound(text)) { $0.jsonString(text) }
    }

    mutating func writeDecimal(_ value: Int64) {
        writeRaw(maxBytes: 21) { $0.decimal(value) }
    }

    /// The members of `LookupResult.json`, without the enclosing braces.
    mutating func writeLookupMembers(_ result: LookupResult) {
        writeRaw(maxBytes: RawWriter.lookupBound(result)) { $0.lookupMembers(result) }
    }

    /// `{"error":code,"message":...}` plus optional string members before the message.
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

extension LoadedIndex {
    /// `{"checksum":"...","buildTime":N|null}`: which index answered, rendered once per load.
    static func identityJSON(checksum: String, buildTime: Int64) -> [UInt8] {
        Array("{\"checksum\":\"\(checksum)\",\"buildTime\":\(buildTime > 0 ? String(buildTime) : "null")}".utf8)
    }
}
