/// Walks a numbers section in ascending order, one decoded block at a time, and never yields
/// a number it has not checked: each block's CRC is compared with its directory entry before
/// the block is decoded (unless the caller wrote or verified the bytes itself), the block must
/// decode to the count the directory gives, and numbers must rise strictly within and across
/// blocks. Anything else throws `CallDirError` naming the section and block, so a damaged file
/// gives an error, never a short or altered sequence. With `releasingPagesOf`, pages already
/// read are dropped from memory, so a pass over a huge file stays small.
package struct NumberCursor {
    private let set: NumberSetReader
    private let path: String
    private let checkBlocks: Bool
    private let file: MappedFile?
    /// File offset below which pages were dropped (`releasingPagesOf`).
    private var releasedUpTo = 0
    /// Bytes read between two drops: counted in bytes, not blocks, so a section smaller than
    /// a fixed block count (1M identified numbers with their label refs: 3.7 MB) is dropped too.
    package static let releaseStep = 256 << 10
    private var block = 0
    private var numbers: [Int64] = []
    private var labelIDs: [UInt32] = []
    private var position = 0
    private var previous: Int64 = 0
    /// The label id of the number `next()` returned last (0 in blocking sets).
    package private(set) var labelID: UInt32 = 0

    package init(_ set: NumberSetReader, path: String, checkBlocks: Bool = true, releasingPagesOf file: MappedFile? = nil) {
        self.set = set
        self.path = path
        self.checkBlocks = checkBlocks
        self.file = file
        numbers.reserveCapacity(IndexFormat.blockSize)
        labelIDs.reserveCapacity(IndexFormat.blockSize)
    }

    /// The next number, or nil once every block has been read.
    package mutating func next() throws -> Int64? {
        if position == numbers.count {
            guard block < set.blockCount else { return nil }
            try load(block)
            block += 1
        }
        defer { position &+= 1 }
        labelID = labelIDs.isEmpty ? 0 : labelIDs[position]
        return numbers[position]
    }

    /// Positions the cursor so that `next()` returns the first number above `number`: a search
    /// of the directory and one block decoded, not a scan.
    package mutating func seek(after number: Int64) throws {
        guard let b = try set.blockIndex(for: number, path: path) else {  // below every block: start at the top
            block = 0
            numbers.removeAll(keepingCapacity: true)
            position = 0
            previous = 0
            return
        }
        previous = b == 0 ? 0 : set.first(b) &- 1
        try load(b)
        block = b + 1
        while position < numbers.count, numbers[position] <= number { position += 1 }
    }

    /// Moves the numbers `next()` has not returned yet, to the end of the current block
    /// (loading the next block when it is used up), into `out`, and their label ids into
    /// `outLabels` (left empty in blocking sets). False, with both empty, at the end. For
    /// consumers that take a block at a time (the device feed): a whole block is swapped, not
    /// copied.
    package mutating func nextRun(_ out: inout [Int64], labels outLabels: inout [UInt32]) throws -> Bool {
        out.removeAll(keepingCapacity: true)
        outLabels.removeAll(keepingCapacity: true)
        if position == numbers.count {
            guard block < set.blockCount else { return false }
            try load(block)
            block += 1
        }
        if position == 0 {
            swap(&numbers, &out)
            swap(&labelIDs, &outLabels)
            numbers.removeAll(keepingCapacity: true)
            labelIDs.removeAll(keepingCapacity: true)
        } else {
            out.append(contentsOf: numbers[position...])
            if !labelIDs.isEmpty { outLabels.append(contentsOf: labelIDs[position...]) }
        }
        position = numbers.count
        return true
    }

    private mutating func load(_ b: Int) throws {
        let reader = try set.checkedReader(b, checkBlock: checkBlocks, path: path)
        labelIDs.removeAll(keepingCapacity: true)
        numbers.removeAll(keepingCapacity: true)
        numbers.append(contentsOf: repeatElement(0, count: reader.count))
        var last = previous
        let (produced, ascending) = numbers.withUnsafeMutableBufferPointer { out -> (Int, Bool) in
            let produced = reader.decode(into: out.baseAddress!)
            var rising = true
            for value in out[..<produced] {  // rising, and a valid number (a forged block can decode to Int64.max)
                rising = rising && value > last && value <= E164.validValues.upperBound
                last = value
            }
            return (produced, rising)
        }
        guard ascending, produced == reader.count else {
            let what = ascending ? "decodes \(produced) of \(reader.count) numbers" : "numbers are not strictly ascending valid numbers"
            throw CallDirError(.corruptIndex, "\(set.name): block \(b) \(what); run `calldir verify`", path: path,
                               offset: set.entry(b).offset)
        }
        if set.identified {
            for i in 0..<reader.count { labelIDs.append(reader.label(at: i)) }
        }
        previous = last
        position = 0
        if let file, let base = file.bytes.baseAddress, let start = set.data.baseAddress {
            let upTo = start - base + set.entry(b).offset
            if upTo - releasedUpTo >= Self.releaseStep {
                file.release(releasedUpTo..<upTo)  // from 0 the first time: what came before the section too
                releasedUpTo = upTo
            }
        }
    }
}

extension CallDirIndex {
    /// Calls `body` with every blocking number stored one by one, ascending (ranges excluded:
    /// see `blockedRangeList`, or the device feed for the merged stream). Throws on damage.
    public func forEachBlockedNumber(_ body: (Int64) throws -> Void) throws {
        var cursor = NumberCursor(blocked, path: path, checkBlocks: !isVerified)
        while let n = try cursor.next() { try body(n) }
    }

    /// Calls `body` with every identification number and its label, ascending. Throws on damage.
    public func forEachIdentifiedNumber(_ body: (Int64, String) throws -> Void) throws {
        var cursor = NumberCursor(identified, path: path, checkBlocks: !isVerified)
        while let n = try cursor.next() { try body(n, try label(cursor.labelID)) }
    }

    /// Block and identification ranges, ascending.
    public var blockedRangeList: [NumberRange] {
        (0..<blockedRanges.count).map { let r = blockedRanges.range($0); return NumberRange(first: r.first, last: r.last) }
    }

    /// Identification ranges and their labels; throws, naming the damage, when a label block
    /// cannot be read (there is no lenient variant: a damaged label must never become "").
    public func checkedIdentifiedRanges() throws -> [(range: NumberRange, label: String)] {
        try (0..<identifiedRanges.count).map {
            let r = identifiedRanges.range($0)
            return (NumberRange(first: r.first, last: r.last), try label(r.label))
        }
    }
}
