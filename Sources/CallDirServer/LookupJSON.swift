import CallDirLookup
import CallDirReader
import NIOCore

// The daemon writes its JSON with the lookup front's `JSONWriter`, straight into the response
// buffer's memory (the bytes `calldir lookup --json` prints; a test compares them).

extension ByteBuffer {
    /// Reserves `maxBytes`, lets `body` write at most that many, and keeps what it wrote.
    @inline(__always)
    mutating func writeRaw(maxBytes: Int, _ body: (inout JSONWriter) -> Void) {
        writeWithUnsafeMutableBytes(minimumWritableBytes: maxBytes) { memory in
            JSONWriter.write(into: memory.baseAddress!, capacity: maxBytes, body)
        }
    }

    mutating func writeJSONString(_ text: String) {
        writeRaw(maxBytes: JSONWriter.stringBound(text)) { $0.string(text) }
    }

    mutating func writeDecimal(_ value: Int64) {
        writeRaw(maxBytes: 21) { $0.decimal(value) }
    }

    /// The members of `LookupResult.json`, without the enclosing braces.
    mutating func writeLookupMembers(_ result: LookupResult) {
        writeRaw(maxBytes: JSONWriter.lookupBound(result)) { $0.lookupMembers(result) }
    }

    /// `{"error":code,"message":...}`.
    mutating func writeError(_ code: String, _ message: String) {
        writeStaticString("{\"error\":")
        writeJSONString(code)
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
