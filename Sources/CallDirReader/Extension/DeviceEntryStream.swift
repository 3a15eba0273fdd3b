/// One kind's device entries in ascending order: the index's exact numbers merged with its
/// ranges (expanded by a counter, never materialised), each number once. An exact number
/// inside a range of its kind comes once, with its own label: exact entries win, as lookups
/// answer. Ranges are disjoint per kind in the file (narrower-range resolution happened at
/// compile time), so the merge needs no other rule.
///
/// Entries are handed out in chunks of up to `chunk` through `numbers` and `labelIDs`, so the
/// generic loop in `DeviceLoader` that calls a context is a plain loop over a buffer. Memory is
/// one block, one chunk and a bounded label cache, whatever the index's size; pages of the
/// numbers section already read are released as the cursor passes them.
///
/// The one home of "device entries": the device feed, `DeviceDeltaStream`, exports and
/// `verify`'s recount all walk them through this type (closure walks: `+Walks.swift`).
@usableFromInline
package final class DeviceEntryStream {
    @usableFromInline let kind: DeviceEntryKind
    @usableFromInline static let chunk = 1024
    /// The chunk `fill` wrote: numbers, and label ids for identification entries.
    @usableFromInline let numbers: UnsafeMutablePointer<Int64>
    @usableFromInline let labelIDs: UnsafeMutablePointer<UInt32>
    /// The last number handed out (0 before the first).
    @usableFromInline private(set) var lastNumber: Int64 = 0

    private var cursor: NumberCursor
    private let ranges: RangeTableReader
    private let labels: LabelReader
    private let checkLabels: Bool
    private let path: String
    private let withLabels: Bool
    // `@exclusivity(unchecked)`: only this class's methods touch them, one at a time; the
    // dynamic checks were most of `DeviceDeltaStream`'s time (several per exact number).
    @exclusivity(unchecked) private var exact: [Int64] = []  // the rest of the current block
    @exclusivity(unchecked) private var exactLabels: [UInt32] = []  // empty when the block stores no label bits (all 0)
    @exclusivity(unchecked) private var exactPos = 0
    @exclusivity(unchecked) private var exactDone = false
    @exclusivity(unchecked) private var rangeIndex = 0  // the current range: rangeNext...rangeLast still to hand out
    @exclusivity(unchecked) private var rangeNext: Int64 = 1
    @exclusivity(unchecked) private var rangeLast: Int64 = 0
    @exclusivity(unchecked) private var rangeLabel: UInt32 = 0
    /// Decoded labels by id (a pointer, not an array property: no exclusivity check per use).
    private let labelCache: UnsafeMutablePointer<String?>
    private let labelCacheCount: Int

    /// How many shared labels the index has: their refs are 0..<sharedLabelCount (`LabelRef`).
    var sharedLabelCount: Int { labels.sharedCount }

    /// Decoded labels kept (identification): enough for every list seen, bounded for memory.
    static let labelCacheLimit = 4096

    /// `releasingPages`: drop the pages of numbers already read (a pass over a large file
    /// stays small); false for `verify`, whose caller goes on to serve the file.
    @usableFromInline
    package init(index: CallDirIndex, kind: DeviceEntryKind, releasingPages: Bool = true) {
        self.kind = kind
        withLabels = kind == .identification
        let set = withLabels ? index.identified : index.blocked
        cursor = NumberCursor(set, path: index.path, checkBlocks: !index.isVerified, releasingPagesOf: releasingPages ? index.file : nil)
        ranges = withLabels ? index.identifiedRanges : index.blockedRanges
        labels = index.labels
        checkLabels = !index.isVerified
        path = index.path
        labelCacheCount = withLabels ? min(index.labels.sharedCount, Self.labelCacheLimit) : 0
        labelCache = .allocate(capacity: max(labelCacheCount, 1))
        labelCache.initialize(repeating: nil, count: max(labelCacheCount, 1))
        numbers = .allocate(capacity: Self.chunk)
        labelIDs = .allocate(capacity: Self.chunk)
        exact.reserveCapacity(IndexFormat.blockSize)
        exactLabels.reserveCapacity(IndexFormat.blockSize)
    }

    deinit {
        numbers.deallocate()
        labelIDs.deallocate()
        labelCache.deinitialize(count: max(labelCacheCount, 1))
        labelCache.deallocate()
    }

    /// Positions the stream after `number` (0: at the start): a directory search, one block
    /// decoded and a binary search of the ranges, not a scan.
    @usableFromInline
    func seek(after number: Int64) throws {
        try cursor.seek(after: number)
        exact.removeAll(keepingCapacity: true)
        exactLabels.removeAll(keepingCapacity: true)
        exactPos = 0
        exactDone = false
        rangeIndex = number == .max ? ranges.count : ranges.firstIndex(endingAtOrAbove: number + 1)
        loadRange()
        if rangeNext <= rangeLast { rangeNext = max(rangeNext, number &+ 1) }
        lastNumber = number
    }

    /// True when every entry has been handed out.
    @usableFromInline
    func atEnd() throws -> Bool {
        try refillIfNeeded()
        return exactPos == exact.count && rangeNext > rangeLast
    }

    /// Writes the next entries, at most `limit` (and `chunk`), to `numbers` (and `labelIDs`);
    /// returns how many (0: the end). Throws on damage, before handing out a bad number.
    @usableFromInline
    func fill(max limit: Int) throws -> Int {
        let limit = min(limit, Self.chunk)
        var n = 0
        while n < limit {
            try refillIfNeeded()
            let hasExact = exactPos < exact.count
            let hasRange = rangeNext <= rangeLast
            if hasRange, !hasExact || rangeNext < exact[exactPos] {
                // Range numbers below the next exact one: a counter.
                let stop = hasExact ? min(rangeLast, exact[exactPos] - 1) : rangeLast
                let count = Int(min(Int64(limit - n), stop - rangeNext + 1))
                let first = rangeNext
                for i in 0..<count { numbers[n &+ i] = first &+ Int64(i) }
                if withLabels { labelIDs.advanced(by: n).update(repeating: rangeLabel, count: count) }
                n += count
                rangeNext = first + Int64(count)
                if rangeNext > rangeLast { nextRange() }
            } else if hasExact {
                n = copyExact(into: n, limit: limit, below: hasRange ? rangeNext : Int64.max)
                // An exact number equal to the range's next one: once, with the exact label.
                if hasRange, n < limit, exactPos < exact.count, exact[exactPos] == rangeNext {
                    numbers[n] = rangeNext
                    if withLabels { labelIDs[n] = exactLabels.isEmpty ? 0 : exactLabels[exactPos] }
                    n += 1
                    exactPos += 1
                    rangeNext += 1
                    if rangeNext > rangeLast { nextRange() }
                }
            } else {
                break
            }
        }
        if n > 0 { lastNumber = numbers[n - 1] }
        return n
    }

    /// The next entries as one segment, without consuming them: a stretch of a range below
    /// the next exact number (one label), or one exact number. nil at the end. `DeviceDelta`
    /// compares two indexes segment by segment, so equal stretches of ranges cost O(1).
    func peekSegment() throws -> (first: Int64, last: Int64, label: UInt32)? {
        try refillIfNeeded()
        let hasExact = exactPos < exact.count
        let hasRange = rangeNext <= rangeLast
        if hasRange, !hasExact || rangeNext < exact[exactPos] {
            return (rangeNext, hasExact ? min(rangeLast, exact[exactPos] - 1) : rangeLast, rangeLabel)
        }
        guard hasExact else { return nil }
        return (exact[exactPos], exact[exactPos], exactLabels.isEmpty ? 0 : exactLabels[exactPos])
    }

    /// Consumes the segment `peekSegment` returned through `number` (within it).
    func consume(through number: Int64) throws {
        if exactPos < exact.count, exact[exactPos] == number {
            exactPos += 1  // an exact segment; a range's number under it goes with it
        }
        if rangeNext <= rangeLast, rangeNext <= number {
            rangeNext = number + 1
            if rangeNext > rangeLast { nextRange() }
        }
        lastNumber = number
    }

    /// How many device entries there are: a stretch of a range costs O(1) however long (a
    /// forged range of 10^14 numbers included), exact numbers below the next range number are
    /// counted a block at a time. `verify` recounts with it.
    package func count() throws -> Int64 {
        try seek(after: 0)
        var total: Int64 = 0
        while let s = try peekSegment() {
            let bound = rangeNext <= rangeLast ? rangeNext : .max
            var i = exactPos
            while i < exact.count, exact[i] < bound { i += 1 }
            if i > exactPos {
                total += Int64(i - exactPos)
                exactPos = i
            } else {
                total += s.last - s.first + 1
                try consume(through: s.last)
            }
        }
        return total
    }

    /// The entries as stored, for exports that keep ranges: exact numbers (`number`) and whole
    /// ranges (`range`) ascending, a range before the exact numbers above its first. Exact
    /// numbers inside a range come too (the index keeps both). Hands out every entry.
    package func forEachStored(number: (_ number: Int64, _ label: UInt32) throws -> Void,
                               range: (_ range: NumberRange, _ label: UInt32) throws -> Void) throws {
        try seek(after: 0)
        var r = 0
        var nextFirst = ranges.isEmpty ? Int64.max : ranges.range(0).first  // the next range's first number
        func rangesBelow(_ n: Int64) throws {
            while nextFirst < n {
                let next = ranges.range(r)
                try range(NumberRange(first: next.first, last: next.last), next.label)
                r += 1
                nextFirst = r < ranges.count ? ranges.range(r).first : .max
            }
        }
        while try cursor.nextRun(&exact, labels: &exactLabels) {
            let (block, ids) = (exact, exactLabels)  // shared storage, not copies
            for i in 0..<block.count {
                if nextFirst < block[i] { try rangesBelow(block[i]) }
                try number(block[i], ids.isEmpty ? 0 : ids[i])
            }
        }
        exactPos = exact.count
        exactDone = true
        try rangesBelow(.max)  // every range: none starts at Int64.max (checked at open)
        rangeNext = 1
        rangeLast = 0
    }

    /// Copies exact numbers below `bound` from the current block; returns the new fill count.
    private func copyExact(into start: Int, limit: Int, below bound: Int64) -> Int {
        var n = start
        exact.withUnsafeBufferPointer { exact in
            var i = exactPos
            while n < limit, i < exact.count, exact[i] < bound {
                numbers[n] = exact[i]
                n &+= 1
                i &+= 1
            }
            if withLabels {
                let ids = exactLabels
                for j in 0..<(n - start) { labelIDs[start + j] = ids.isEmpty ? 0 : ids[exactPos + j] }
            }
            exactPos = i
        }
        return n
    }

    private func refillIfNeeded() throws {
        guard exactPos == exact.count, !exactDone else { return }
        exactPos = 0
        exactDone = try !cursor.nextRun(&exact, labels: &exactLabels)
    }

    private func nextRange() {
        rangeIndex += 1
        loadRange()
    }

    /// Loads range `rangeIndex` (none past the last). `RangeTableReader.init` checked at open
    /// that ranges rise and do not overlap, so the merge never hands CallKit an entry out of order.
    private func loadRange() {
        guard rangeIndex < ranges.count else {
            rangeNext = 1
            rangeLast = 0
            return
        }
        let r = ranges.range(rangeIndex)
        rangeNext = r.first
        rangeLast = r.last
        rangeLabel = r.label
    }

    /// The text of label ref `id` (identification entries); shared labels are cached, stream
    /// labels (one entry each) are not. Throws when the ref is out of bounds or damaged.
    @usableFromInline
    package func label(_ id: UInt32) throws -> String {
        let i = Int(id)
        if i < labelCacheCount, let text = labelCache[i] { return text }
        let text = try labels.label(id, check: checkLabels, path: path)
        if i < labelCacheCount { labelCache[i] = text }
        return text
    }
}
