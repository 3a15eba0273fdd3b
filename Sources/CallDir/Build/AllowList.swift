import CallDirNumbers
import CallDirReader
import CallDirWriter

/// Numbers and ranges that must never be blocked (a user's contacts, a bank's hotline).
/// Held in memory, sorted: allowlists are small next to blocklists.
struct AllowList {
    private(set) var numbers: [Int64] = []
    private(set) var ranges: [NumberRange] = []

    var isEmpty: Bool { numbers.isEmpty && ranges.isEmpty }

    init() {}

    init(numbers: [Int64], ranges: [NumberRange]) {
        self.numbers = Array(Set(numbers)).sorted()
        self.ranges = RangeMath.merge(ranges)
    }

    func contains(_ number: Int64) -> Bool {
        RangeMath.sortedContains(numbers, number) || RangeMath.find(number, in: ranges) != nil
    }
}

/// The allowlist's part of the range arithmetic (the rest is the writer's `RangeMath`).
extension RangeMath {
    /// `ranges` (sorted, disjoint) minus every allowed number and range, splitting where
    /// needed. Returns the pieces and how many numbers were removed.
    static func subtract(_ allow: AllowList, from ranges: [NumberRange]) -> (ranges: [NumberRange], removed: Int64) {
        guard !allow.isEmpty else { return (ranges, 0) }
        let holes = merge(allow.ranges + allow.numbers.map { NumberRange(first: $0, last: $0) })
        var result: [NumberRange] = []
        var removed: Int64 = 0
        for r in ranges {
            var start = r.first
            var i = holes.firstIndex(endingAtOrAbove: r.first) { $0.last }
            while i < holes.count, holes[i].first <= r.last, start <= r.last {
                let hole = holes[i]
                if hole.first > start { result.append(NumberRange(first: start, last: hole.first - 1)) }
                removed += min(hole.last, r.last) - max(hole.first, start) + 1
                start = hole.last == Int64.max ? Int64.max : hole.last + 1
                if hole.last >= r.last { start = r.last + 1; break }
                i += 1
            }
            if start <= r.last { result.append(NumberRange(first: start, last: r.last)) }
        }
        return (result, removed)
    }
}
