#if canImport(Glibc)
import Glibc
#endif
import CallDir

/// `calldir lookup -`: numbers from a stream, one per line.
///
/// Valid numbers are looked up 256 at a time with the index's batch lookup, whose memory reads
/// overlap; a line that is not a number first flushes the answers before it and is then
/// reported, so answers and errors keep input order. Lines are split in a 1 MiB buffer and
/// answers are formatted as bytes: `getline` plus a `String` per line and per answer took
/// 1.45 s for a million lines; this takes ~0.3 s.
extension Lookup {
    static let batchSize = 256

    func answerLines(fd: Int32) throws {
        var pending: [Int64] = []
        pending.reserveCapacity(Self.batchSize)
        try forEachLine(fd: fd) { line in
            if line.isEmpty { return }
            if case .success(.number(let number)) = normalizer.normalize(line) {
                pending.append(number)
                if pending.count == Self.batchSize { answer(pending); pending.removeAll(keepingCapacity: true) }
            } else {
                answer(pending)
                pending.removeAll(keepingCapacity: true)
                answer(String(decoding: line, as: UTF8.self))  // reports why it is not a number
            }
        }
        answer(pending)
    }

    /// Answers `numbers` in order; after a failure in the batch (damage), the rest one by one.
    private func answer(_ numbers: [Int64]) {
        var answered = 0
        do {
            try numbers.withUnsafeBufferPointer { numbers in
                try index.lookup(numbers) { result in
                    write(result)
                    answered += 1
                }
            }
        } catch {
            for number in numbers[answered...] { answer(number: number) }
        }
    }

    /// Calls `body` with each line of `fd` (without its LF or CRLF), in order.
    private func forEachLine(fd: Int32, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let capacity = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
        defer { buffer.deallocate() }
        let base = buffer.baseAddress!
        var filled = 0
        while true {
            let n = read(fd, base + filled, capacity - filled)
            if n < 0 {
                if errno == EINTR { continue }
                throw CallDirError(.io, "cannot read stdin: \(String(cString: strerror(errno)))")
            }
            filled += n
            var start = 0
            while let newline = memchr(base + start, 0x0A, filled - start) {
                let end = base.distance(to: newline)
                try body(line(base, from: start, to: end))
                start = end + 1
            }
            if n == 0 || start == 0 && filled == capacity {  // end of input, or a 1 MiB line
                if start < filled { try body(line(base, from: start, to: filled)) }
                if n == 0 { return }
                filled = 0
                continue
            }
            memmove(base, base + start, filled - start)
            filled -= start
        }
    }

    private func line(_ base: UnsafeMutableRawPointer, from start: Int, to end: Int) -> UnsafeRawBufferPointer {
        var end = end
        if end > start && base.load(fromByteOffset: end - 1, as: UInt8.self) == 0x0D { end -= 1 }
        return UnsafeRawBufferPointer(start: base + start, count: end - start)
    }
}

extension StdoutBuffer {
    /// Writes `Lookup.text(result)` and a newline, as bytes for the common answers.
    mutating func writeLine(_ result: LookupResult) {
        guard result.blockedRange == nil, result.labelRange == nil, result.number > 0 else {
            write(Lookup.text(result) + "\n")
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for 24 digits
        withUnsafeMutableBytes(of: &digits) { digits in
            var value = UInt64(result.number)
            var at = digits.count
            repeat {
                at -= 1
                digits[at] = UInt8(truncatingIfNeeded: 0x30 + value % 10)
                value /= 10
            } while value > 0
            write(UnsafeRawBufferPointer(staticString: "+"))
            write(UnsafeRawBufferPointer(rebasing: digits[at...]))
        }
        write(UnsafeRawBufferPointer(staticString: "  "))
        if result.blocked != nil { write(UnsafeRawBufferPointer(staticString: "blocked")) }
        if var label = result.label {
            write(UnsafeRawBufferPointer(staticString: result.blocked == nil ? "identified: " : ", identified: "))
            label.withUTF8 { write(UnsafeRawBufferPointer($0)) }
        }
        if !result.isListed { write(UnsafeRawBufferPointer(staticString: "unknown")) }
        write(UnsafeRawBufferPointer(staticString: "\n"))
    }
}

extension UnsafeRawBufferPointer {
    init(staticString: StaticString) {
        self.init(start: staticString.utf8Start, count: staticString.utf8CodeUnitCount)
    }
}
