import CallDirReader

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

/// Range arithmetic on sorted arrays.
enum RangeMath {
    /// Sorted, with overlapping and adjacent ranges joined.
    static func merge(_ ranges: [NumberRange]) -> [NumberRange] {
        var merged: [NumberRange] = []
        for r in ranges.sorted() {
            if let last = merged.last, r.first <= last.last || r.first == last.last + 1 {
                merged[merged.count - 1].last = max(last.last, r.last)
            } else {
                merged.append(r)
            }
        }
        return merged
    }

    static func sortedContains(_ sorted: [Int64], _ value: Int64) -> Bool {
        var low = 0
        var high = sorted.count
        while low < high {
            let mid = (low + high) >> 1
            if sorted[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low < sorted.count && sorted[low] == value
    }

    /// Index of the range of sorted disjoint `ranges` holding `value`.
    static func find(_ value: Int64, in ranges: [NumberRange]) -> Int? {
        let i = ranges.firstIndex(endingAtOrAbove: value) { $0.last }
        return i < ranges.count && ranges[i].first <= value ? i : nil
    }

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

    /// Overlapping identification ranges resolved so the narrower range wins (ties: the
    /// earlier source row), as sorted disjoint segments; neighbours with one label are joined.
    static func flatten(_ ranges: [(range: NumberRange, label: UInt32, origin: Origin)]) -> [(NumberRange, UInt32)] {
        guard !ranges.isEmpty else { return [] }
        var points = Set<Int64>()
        for r in ranges {
            points.insert(r.range.first)
            if r.range.last < Int64.max { points.insert(r.range.last + 1) }
        }
        let boundaries = points.sorted()
        let byStart = ranges.sorted { $0.range.first < $1.range.first }
        var next = 0
        var active: [(range: NumberRange, label: UInt32, origin: Origin)] = []
        var segments: [(NumberRange, UInt32)] = []
        for (i, point) in boundaries.enumerated() {
            while next < byStart.count, byStart[next].range.first <= point { active.append(byStart[next]); next += 1 }
            active.removeAll { $0.range.last < point }
            guard let winner = active.min(by: { ($0.range.count, $0.origin) < ($1.range.count, $1.origin) }) else { continue }
            let end = i + 1 < boundaries.count ? boundaries[i + 1] - 1 : winner.range.last
            if let last = segments.last, last.1 == winner.label, last.0.last + 1 == point {
                segments[segments.count - 1].0.last = end
            } else {
                segments.append((NumberRange(first: point, last: end), winner.label))
            }
        }
        return segments
    }
}
