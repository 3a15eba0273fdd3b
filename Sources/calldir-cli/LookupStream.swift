#if canImport(Glibc)
import Glibc
#endif
import CallDir
import CallDirLookup
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
    /// The batch writes into a local buffer, swapped with `out` (see `write(_:to:)`).
    private func answer(_ numbers: [Int64]) {
        var answered = 0, listed = true
        var buffer = StdoutBuffer()
        swap(&buffer, &out)
        try? numbers.withUnsafeBufferPointer { numbers in  // a throw stops the batch; see below
            try index.lookupViews(numbers) { result in
                listed = listed && result.isListed
                write(result, to: &buffer)
                answered += 1
            }
        }
        swap(&buffer, &out)
        if !listed { unlisted = true }
        for number in numbers[answered...] { answer(number: number) }
    }
}
