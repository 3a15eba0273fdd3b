import CallDirNumbers
import CallDirReader

/// The text answers of `calldir lookup`, one line each.
extension StdoutBuffer {
    /// Writes one answer line, as bytes: `+18005555555  blocked`, `... identified: LABEL`,
    /// `... blocked (range +FIRST..+LAST)`, `... unknown`. The line is put together on the
    /// stack and appended once (an append per piece cost more than the label lookup's decode).
    /// `notes` close the line in parentheses (the user's layer: `(your block)`).
    package mutating func writeLine(_ result: LookupResultView, notes: [String] = []) {
        let bound = 256 + (result.label?.count ?? 0) + notes.reduce(0) { $0 + $1.utf8.count + 2 }
        withUnsafeTemporaryAllocation(byteCount: bound, alignment: 8) { memory in
            // JSONWriter used as a plain byte writer: no escaping here.
            let count = JSONWriter.write(into: memory.baseAddress!, capacity: bound) { line in
                line.byte(UInt8(ascii: "+"))
                line.decimal(max(0, result.number))
                line.text("  ")
                if let match = result.blocked {
                    line.text("blocked")
                    if match == .range, let range = result.blockedRange { Self.writeRange(range, &line) }
                }
                if let label = result.label {
                    if result.blocked == nil { line.text("identified: ") } else { line.text(", identified: ") }
                    line.bytes(label)
                    if result.labelMatch == .range, let range = result.labelRange { Self.writeRange(range, &line) }
                }
                if !result.isListed { line.text("unknown") }
                if !notes.isEmpty {
                    line.text(" (")
                    for (i, note) in notes.enumerated() {
                        if i > 0 { line.text(", ") }
                        var note = note
                        note.withUTF8 { line.bytes(UnsafeRawBufferPointer($0)) }
                    }
                    line.byte(UInt8(ascii: ")"))
                }
                line.byte(UInt8(ascii: "\n"))
            }
            write(UnsafeRawBufferPointer(start: memory.baseAddress, count: count))
        }
    }

    /// The answer line for an input that is not a number: the input (control characters as
    /// spaces, so it stays one line), then `blocked` or `unknown` and why:
    /// `anonymous  unknown (not a number: anonymous)`.
    package mutating func writeLine(input: String, reason: RejectReason, action: CallerIDAction) {
        var line = Array(input.utf8).map { $0 < 0x20 ? 0x20 : $0 }
        line += Array("  \(action == .block ? "blocked" : "unknown") (not a number: \(reason.rawValue))\n".utf8)
        line.withUnsafeBytes { write($0) }
    }

    private static func writeRange(_ range: NumberRange, _ line: inout JSONWriter) {
        line.text(" (range +")
        line.decimal(max(0, range.first))
        line.text("..+")
        line.decimal(max(0, range.last))
        line.byte(UInt8(ascii: ")"))
    }
}
