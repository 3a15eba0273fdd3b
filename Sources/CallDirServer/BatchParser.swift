import CallDirLookup
import NIOCore

/// Splits a `POST /v1/lookup` body into number texts: a JSON array of strings or integers
/// (`["+1 800 555 5555", 14085555555]`, parsed by the lookup front's `JSONStringArray`, the one JSON
/// reader), or plain text with one number per line (blank lines skipped, CRLF accepted). The
/// first non-blank byte decides: `[` means JSON.
enum BatchParser {
    typealias Failure = JSONStringArray.Failure

    static func parse(_ body: ByteBuffer, limit: Int) -> Result<[String], Failure> {
        body.withUnsafeReadableBytes { bytes in
            var start = 0
            while start < bytes.count, isBlank(bytes[start]) { start += 1 }
            if start < bytes.count, bytes[start] == UInt8(ascii: "[") {
                return JSONStringArray.parse(bytes, limit: limit)
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
