import CallDirReader

/// A JSON array of strings and numbers held in memory (`["+1 800 555 5555", 14085555555]`),
/// read by the same `JSONScanner` that reads JSON lists, so a body and a file are decoded by
/// one set of rules (escapes, surrogate pairs, a lone surrogate as U+FFFD). Strings come back
/// decoded, numbers as their literal text: the normaliser decides what is a phone number.
/// The daemon's batch bodies.
package enum JSONStringArray {
    package enum Failure: Error, Equatable, Sendable {
        /// Not a JSON array of strings and numbers; the message says what and where.
        case malformed(String)
        /// More than the limit; parsing stops at the first item past it.
        case tooMany(limit: Int)
    }

    package static func parse(_ bytes: UnsafeRawBufferPointer, limit: Int) -> Result<[String], Failure> {
        let cursor = ByteCursor(memory: bytes, name: "body")
        let scanner = JSONScanner(cursor: cursor)
        var items: [String] = []
        var text: [UInt8] = []
        do {
            try cursor.skipWhitespace()
            try scanner.expect(0x5B, "'['")
            try cursor.skipWhitespace()
            if try cursor.peek() == 0x5D {
                _ = try cursor.next()
            } else {
                while true {
                    try cursor.skipWhitespace()
                    if items.count == limit { return .failure(.tooMany(limit: limit)) }
                    text.removeAll(keepingCapacity: true)
                    switch try cursor.peek() {
                    case 0x22: try scanner.readString(into: &text)
                    case 0x2D, .some(0x30...0x39): try scanner.readNumber(into: &text)
                    case let found: throw scanner.error("expected a string or a number but found \(describeFound(found))")
                    }
                    items.append(String(decoding: text, as: UTF8.self))
                    try cursor.skipWhitespace()
                    let found = try cursor.next()
                    if found == 0x2C { continue }
                    if found == 0x5D { break }
                    throw scanner.error("expected ',' or ']' but found \(describeFound(found))")
                }
            }
            try cursor.skipWhitespace()
            if let extra = try cursor.peek() { throw scanner.error("unexpected \(describeFound(extra)) after the array") }
        } catch let error as CallDirError {
            return .failure(.malformed(error.message + (error.line.map { " (line \($0))" } ?? "")))
        } catch {
            return .failure(.malformed("\(error)"))
        }
        return .success(items)
    }
}
