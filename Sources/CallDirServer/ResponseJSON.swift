import CallDirLookup
import CallDirReader
import NIOCore

// The daemon writes its JSON with the reader's `JSONWriter`, straight into the response
// buffer's memory; its lookup answers are the lookup front's (`JSONWriter.answer`), the bytes
// `calldir lookup --json` prints.

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
