import CallDirNumbers
import CallDirReader

/// Range arithmetic on sorted arrays: how a list's ranges become an index's range sections.
/// The compiler and the test suites' index builder (TestSupport) both write through it, so
/// an index built without the compiler holds the same sections as a compile's.
package enum RangeMath {
    /// Sorted, with overlapping and adjacent ranges joined.
    package static func merge(_ ranges: [NumberRange]) -> [NumberRange] {
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

    package static func sortedContains(_ sorted: [Int64], _ value: Int64) -> Bool {
        var low = 0
        var high = sorted.count
        while low < high {
            let mid = (low + high) >> 1
            if sorted[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low < sorted.count && sorted[low] == value
    }

    /// Index of the range of sorted disjoint `ranges` holding `value`.
    package static func find(_ value: Int64, in ranges: [NumberRange]) -> Int? {
        let i = ranges.firstIndex(endingAtOrAbove: value) { $0.last }
        return i < ranges.count && ranges[i].first <= value ? i : nil
    }

    /// Overlapping identification ranges resolved so the narrower range wins (ties: the
    /// earlier `origin`, a source row), as sorted disjoint segments; neighbours with one label
    /// are joined.
    package static func flatten<Origin: Comparable>(_ ranges: [(range: NumberRange, label: UInt32, origin: Origin)]) -> [(NumberRange, UInt32)] {
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
