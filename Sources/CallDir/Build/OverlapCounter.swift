import CallDirReader

/// Counts, by merging sorted streams, what the summary and `--max-numbers` need: numbers in
/// both kinds, and exact numbers that a range of their kind already covers.
enum OverlapCounter {
    static func common(_ a: inout NumberCursor, _ b: inout NumberCursor) -> Int {
        var count = 0
        var x = a.next()
        var y = b.next()
        while let u = x, let v = y {
            if u == v { count += 1; x = a.next(); y = b.next() } else if u < v { x = a.next() } else { y = b.next() }
        }
        return count
    }

    static func insideRanges(_ numbers: inout NumberCursor, _ ranges: [NumberRange]) -> Int {
        var count = 0
        var r = 0
        while let n = numbers.next() {
            while r < ranges.count, ranges[r].last < n { r += 1 }
            if r == ranges.count { break }
            if ranges[r].first <= n { count += 1 }
        }
        return count
    }
}
