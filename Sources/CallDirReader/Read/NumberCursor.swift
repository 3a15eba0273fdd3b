/// Walks a numbers section in ascending order, one decoded block at a time. With `release`,
/// pages already read are dropped from memory, so a pass over a huge file stays small.
package struct NumberCursor {
    private let set: NumberSetReader
    private let file: MappedFile?
    private var block = 0
    private var buffer: [Int64] = []
    private var position = 0

    package init(_ set: NumberSetReader, releasingPagesOf file: MappedFile? = nil) {
        self.set = set
        self.file = file
        buffer.reserveCapacity(IndexFormat.blockSize)
    }

    /// The next number, or nil at the end (or at a block that does not decode).
    package mutating func next() -> Int64? {
        if position == buffer.count {
            guard block < set.blockCount, let reader = set.reader(forBlock: block) else { return nil }
            buffer.removeAll(keepingCapacity: true)
            reader.forEach { buffer.append($0); return true }
            if let file, block % 4096 == 4095, let base = file.bytes.baseAddress, let start = set.data.baseAddress {
                let end = start - base + set.entry(block).offset
                file.release(0..<end)
            }
            block += 1
            position = 0
            if buffer.isEmpty { return nil }
        }
        defer { position += 1 }
        return buffer[position]
    }
}

extension CallDirIndex {
    /// Calls `body` with every blocking number stored one by one, ascending (ranges excluded).
    public func forEachBlockedNumber(_ body: (Int64) throws -> Void) rethrows {
        var cursor = NumberCursor(blocked)
        while let n = cursor.next() { try body(n) }
    }

    /// Calls `body` with every identification number and its label, ascending.
    public func forEachIdentifiedNumber(_ body: (Int64, String) throws -> Void) throws {
        for b in 0..<identified.blockCount {
            guard let reader = identified.reader(forBlock: b) else {
                throw CallDirError(.corruptIndex, "identified-numbers: block \(b) is malformed", path: path)
            }
            var i = 0
            var failure: Error?
            reader.forEach { n in
                do { try body(n, try labels.label(reader.label(at: i), path: path)) } catch { failure = error; return false }
                i += 1
                return true
            }
            if let failure { throw failure }
        }
    }

    /// Block and identification ranges, ascending.
    public var blockedRangeList: [NumberRange] {
        (0..<blockedRanges.count).map { let r = blockedRanges.range($0); return NumberRange(first: r.first, last: r.last) }
    }

    public var identifiedRangeList: [(range: NumberRange, label: String)] {
        (0..<identifiedRanges.count).map {
            let r = identifiedRanges.range($0)
            return (NumberRange(first: r.first, last: r.last), (try? labels.label(r.label, path: path)) ?? "")
        }
    }
}
