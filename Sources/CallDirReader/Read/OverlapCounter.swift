/// Counts, by merging sorted streams, what the compile summary, `--max-numbers` and `verify`
/// need: numbers in both kinds, and exact numbers that a range of their kind already covers.
package enum OverlapCounter {
    package static func common(_ a: inout NumberCursor, _ b: inout NumberCursor) throws -> Int {
        var count = 0
        var x = try a.next()
        var y = try b.next()
        while let u = x, let v = y {
            if u == v { count += 1; x = try a.next(); y = try b.next() } else if u < v { x = try a.next() } else { y = try b.next() }
        }
        return count
    }

    package static func insideRanges(_ numbers: inout NumberCursor, _ ranges: [NumberRange]) throws -> Int {
        var count = 0
        var r = 0
        while let n = try numbers.next() {
            while r < ranges.count, ranges[r].last < n { r += 1 }
            if r == ranges.count { break }
            if ranges[r].first <= n { count += 1 }
        }
        return count
    }
}
