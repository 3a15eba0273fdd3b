/// Batch lookups, and the classification every lookup shares.
extension CallDirIndex {
    /// A group's flags, bit i for its i-th lookup.
    typealias GroupMask = UInt32

    /// Lookups overlapped by the batch lookups: enough to keep the memory system busy. As many
    /// as a group's mask holds (32) answered 1M stdin lookups 2-4% faster than 16.
    static let groupSize = GroupMask.bitWidth

    /// Classifies every number in `numbers`, calling `body` with each answer in order, its
    /// label borrowed (valid inside `body` only). The answers are those of `lookup(_:)`; on an
    /// index larger than the CPU caches this is much faster than calling it in a loop: the
    /// memory reads of 32 lookups overlap, and no `String` is made per label. After a throw,
    /// `body` has seen a prefix of the answers: at least those of the groups of 32 before the
    /// damaged part (every answer before a damaged label).
    package func lookupViews(_ numbers: UnsafeBufferPointer<Int64>, _ body: (LookupResultView) throws -> Void) throws {
        let check = !isVerified
        try withUnsafeTemporaryAllocation(of: UInt32.self, capacity: Self.groupSize) { refs in
            var start = 0
            while start < numbers.count {
                let group = UnsafeBufferPointer(rebasing: numbers[start..<min(start + Self.groupSize, numbers.count)])
                var exact: GroupMask = 0, found: GroupMask = 0  // bit i: group[i] is blocked exactly / identified exactly
                try blocked.find(group: group, checkBlock: check, path: path) { i, id in
                    if id != nil { exact |= 1 << GroupMask(i) }
                }
                // A label's directory entry starts loading as soon as its ref is known, and its
                // block's cache lines once the group's entries are in: loads overlap, as numbers' do.
                try identified.find(group: group, checkBlock: check, path: path) { i, id in
                    if let id { refs[i] = id; found |= 1 << GroupMask(i); labels.prefetchDirectoryEntry(of: id) }
                }
                forEachBit(found) { labels.prefetchBlock(of: refs[$0]) }
                for i in group.indices {
                    try answer(group[i], blockedExactly: exact & (1 << GroupMask(i)) != 0,
                               ref: found & (1 << GroupMask(i)) != 0 ? refs[i] : nil, body)
                }
                start += group.count
            }
        }
    }

    /// `lookupViews` with each label copied into a `String`.
    public func lookup(_ numbers: UnsafeBufferPointer<Int64>, _ body: (LookupResult) throws -> Void) throws {
        try lookupViews(numbers) { try body($0.result) }
    }

    /// `lookup(_:_:)` collected into an array.
    public func lookup(_ numbers: [Int64]) throws -> [LookupResult] {
        var results: [LookupResult] = []
        results.reserveCapacity(numbers.count)
        try numbers.withUnsafeBufferPointer { try lookup($0) { results.append($0) } }
        return results
    }

    /// The answer for `number` given what the numbers sections said (blocked exactly, the
    /// label ref of an exact identification entry): ranges fill in what entries did not.
    @inline(__always)
    func answer(_ number: Int64, blockedExactly: Bool, ref: UInt32?, _ body: (LookupResultView) throws -> Void) throws {
        var view = LookupResultView(number: number)
        if blockedExactly {
            view.blocked = .exact
        } else if let (range, _) = blockedRanges.find(number) {
            view.blocked = .range
            view.blockedRange = range
        }
        var labelRef = ref
        if ref != nil {
            view.labelMatch = .exact
        } else if let (range, id) = identifiedRanges.find(number) {
            labelRef = id
            view.labelMatch = .range
            view.labelRange = range
        }
        guard let labelRef else { return try body(view) }
        // Valid UTF-8: `verify` checked every label of a verified index, `withBytes` checks
        // this one otherwise (`LabelRule`), so views and Strings agree byte for byte.
        try labels.withBytes(of: labelRef, check: !isVerified, path: path) { text in
            view.label = text
            try body(view)
        }
    }
}

/// Calls `body` with the position of every set bit of `mask`, lowest first.
@inline(__always)
private func forEachBit(_ mask: CallDirIndex.GroupMask, _ body: (Int) -> Void) {
    var rest = mask
    while rest != 0 {
        body(rest.trailingZeroBitCount)
        rest &= rest &- 1
    }
}
