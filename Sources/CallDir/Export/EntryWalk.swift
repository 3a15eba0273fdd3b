import CallDirReader
/// Ascending walks over one kind of an index, built on `CallDirIndex`'s public iteration
/// (which checks what it reads). Ranges are small and read as arrays; numbers stream.
struct EntryWalk {
    let index: CallDirIndex

    /// Blocking entries ascending: exact numbers and, before the first number above them,
    /// the ranges. Exact numbers inside a range are kept (the index keeps them).
    func blocked(number: (Int64) throws -> Void, range: (NumberRange) throws -> Void) throws {
        let ranges = index.blockedRangeList
        var r = 0
        try index.forEachBlockedNumber { n in
            while r < ranges.count, ranges[r].first < n { try range(ranges[r]); r += 1 }
            try number(n)
        }
        while r < ranges.count { try range(ranges[r]); r += 1 }
    }

    /// Every blocked number once, ranges expanded, ascending.
    func blockedExpanded(_ body: (Int64) throws -> Void) throws {
        var expander = RangeExpander(ranges: index.blockedRangeList.map { ($0, "") })
        try index.forEachBlockedNumber { n in try expander.exact(n, "") { number, _ in try body(number) } }
        try expander.rest { number, _ in try body(number) }
    }

    /// Every identified number once with its label, ranges expanded (an exact entry's label
    /// wins inside a range, as in a lookup), ascending.
    func identifiedExpanded(_ body: (Int64, String) throws -> Void) throws {
        var expander = RangeExpander(ranges: try index.checkedIdentifiedRanges().map { ($0.range, $0.label) })
        try index.forEachIdentifiedNumber { n, label in try expander.exact(n, label, body) }
        try expander.rest(body)
    }

    /// How many numbers an expanding export of `kind` lists (the union for `.all`).
    func expandedCount(_ kind: ExportKind) throws -> Int64 {
        var count: Int64 = 0
        if kind != .identify { try blockedExpanded { _ in count += 1 } }
        if kind != .block {
            try identifiedExpanded { n, _ in if try kind == .identify || index.lookup(n).blocked == nil { count += 1 } }
        }
        return count
    }

    /// A cheap upper bound of `expandedCount` (exact numbers inside ranges counted twice),
    /// from the sections themselves, never from metadata (which nothing checks at open: a
    /// forged count near Int64.max must not overflow, and a forged range must not hide behind
    /// an unchanged count). Saturates at Int64.max.
    func expandedBound(_ kind: ExportKind) -> Int64 {
        var parts: [Int64] = []
        if kind != .identify { parts += [Int64(index.blockedCount), rangeNumbers(.block)] }
        if kind != .block { parts += [Int64(index.identifiedCount), rangeNumbers(.identify)] }
        return parts.reduce(0) { total, part in
            let (sum, overflow) = total.addingReportingOverflow(part)
            return overflow ? .max : sum
        }
    }

    /// Numbers covered by the ranges of one kind: exact, as ranges of a kind are disjoint
    /// (checked at open), so an expanding export lists at least this many. Valid numbers are
    /// below 10^15, so the sum of disjoint ranges cannot overflow.
    func rangeNumbers(_ kind: ExportKind) -> Int64 {
        let ranges = kind == .identify ? index.identifiedRanges : index.blockedRanges
        return (0..<ranges.count).reduce(Int64(0)) { total, i in
            let r = ranges.range(i)
            return total + (r.last - r.first + 1)
        }
    }
}

/// Merges ascending exact entries with sorted disjoint ranges, expanding the ranges.
struct RangeExpander {
    let ranges: [(NumberRange, String)]
    private var r = 0
    /// The next range number not yet written.
    private var next: Int64

    init(ranges: [(NumberRange, String)]) {
        self.ranges = ranges
        next = ranges.first?.0.first ?? .max
    }

    /// Writes the range numbers below `n`, then `n` with `label` (inside a range, instead of
    /// the range's number).
    mutating func exact(_ n: Int64, _ label: String, _ body: (Int64, String) throws -> Void) throws {
        try below(n, body)
        try body(n, label)
        if r < ranges.count, ranges[r].0.contains(n) { skip(past: n) }
    }

    mutating func rest(_ body: (Int64, String) throws -> Void) throws { try below(.max, body) }

    private mutating func below(_ limit: Int64, _ body: (Int64, String) throws -> Void) throws {
        while r < ranges.count {
            let (range, label) = ranges[r]
            let start = max(next, range.first)
            guard start < limit else { return }
            let end = min(range.last, limit - 1)
            for n in start...end { try body(n, label) }
            if end < range.last { next = end + 1; return }
            skip(past: range.last)
        }
    }

    private mutating func skip(past n: Int64) {
        if n < ranges[r].0.last { next = n + 1; return }
        r += 1
        next = r < ranges.count ? ranges[r].0.first : .max
    }
}
