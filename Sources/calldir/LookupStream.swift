#if canImport(Glibc)
import Glibc
#endif
import CallDir
import CallDirReader

/// `calldir lookup -`: numbers from a stream, one per line.
///
/// Valid numbers are looked up 256 at a time with the index's batch lookup, whose memory reads
/// overlap; a line that is not a number (a blank one included) first flushes the answers
/// before it and is then answered by the policy, so every input line gets one answer line, in
/// order. Lines come from the library's line
/// reader (CRLF, gzip) and answers are formatted as bytes: `getline` plus a `String` per line
/// and per answer took 1.45 s for a million lines; this takes ~0.3 s.
extension Lookup {
    static let batchSize = 256

    /// Throws when the input cannot be read (the answers before it are already written).
    func answerLines(path: String) throws {
        var pending: [Int64] = []
        pending.reserveCapacity(Self.batchSize)
        try forEachLine(ofFile: path) { line, _ in
            switch normalizer.classify(line) {
            case .number(let number):
                pending.append(number)
                if pending.count == Self.batchSize { answer(pending); pending.removeAll(keepingCapacity: true) }
            case .notANumber(let reason):
                answer(pending)
                pending.removeAll(keepingCapacity: true)
                notANumber(String(decoding: line, as: UTF8.self), reason: reason)
            }
        }
        answer(pending)
    }

    /// Answers `numbers` in order; after a failure in the batch (damage), the rest one by one.
    private func answer(_ numbers: [Int64]) {
        var answered = 0
        do {
            try numbers.withUnsafeBufferPointer { numbers in
                try index.lookupViews(numbers) { result in
                    write(result)
                    answered += 1
                }
            }
        } catch {
            for number in numbers[answered...] { answer(number: number) }
        }
    }
}

extension StdoutBuffer {
    /// Writes one answer line, as bytes: `+18005555555  blocked`, `... identified: LABEL`,
    /// `... blocked (range +FIRST..+LAST)`, `... unknown`. The line is put together on the
    /// stack and appended once (an append per piece cost more than the label lookup's decode).
    mutating func writeLine(_ result: LookupResultView) {
        let bound = 256 + (result.label?.count ?? 0)
        withUnsafeTemporaryAllocation(byteCount: bound, alignment: 8) { memory in
            var line = JSONWriter(memory.baseAddress!)  // used as a plain byte writer: no escaping here
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
            line.byte(UInt8(ascii: "\n"))
            precondition(line.count <= bound, "answer line overran its bound")
            write(UnsafeRawBufferPointer(start: memory.baseAddress, count: line.count))
        }
    }

    /// The answer line for an input that is not a number: the input (control characters as
    /// spaces, so it stays one line), then `blocked` or `unknown` and why:
    /// `anonymous  unknown (not a number: anonymous)`.
    mutating func writeLine(input: String, reason: RejectReason, action: CallerIDAction) {
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
