/// Least-significant-digit radix sort of `SortRecord`s, 11 bits per pass. Stable, so sorting
/// by origin first and by number last yields (number, origin) order with ties kept in input
/// order. A pass whose digit is the same in every key is skipped: E.164 numbers (below 2^50)
/// need at most five number passes.
enum RadixSort {
    private static let bits = 11
    private static let buckets = 1 << bits
    private static let digitsPerKey = (64 + bits - 1) / bits  // 6

    /// Sorts `count` records that start at `records`, using `scratch` (room for `count`
    /// records, not overlapping) as the second buffer. Returns whichever of the two holds the
    /// result. `byOrigin: false` sorts by number alone, which suffices when the records came in
    /// ascending origin order.
    static func sort(_ records: UnsafeMutablePointer<SortRecord>, scratch: UnsafeMutablePointer<SortRecord>,
                     count: Int, byOrigin: Bool) -> UnsafeMutablePointer<SortRecord> {
        guard count > 1 else { return records }
        let keyCount = byOrigin ? 2 : 1
        let histograms = histogram(records, count: count, byOrigin: byOrigin)
        defer { histograms.deallocate() }
        var source = records
        var target = scratch
        // Passes from the least significant digit: origin digits first (when asked), then number.
        for key in (0..<keyCount).reversed() {
            for digit in 0..<digitsPerKey {
                let counts = histograms + (key * digitsPerKey + digit) * buckets
                let first = digitValue(source[0], key: key, digit: digit)
                if counts[first] == count { continue }  // one bucket: the pass would not move anything
                scatter(from: source, to: target, count: count, counts: counts, key: key, digit: digit)
                swap(&source, &target)
            }
        }
        return source
    }

    /// Counts of every digit value for every pass, gathered in one read of the records.
    private static func histogram(_ records: UnsafeMutablePointer<SortRecord>, count: Int,
                                  byOrigin: Bool) -> UnsafeMutablePointer<Int> {
        let passes = (byOrigin ? 2 : 1) * digitsPerKey
        let histograms = UnsafeMutablePointer<Int>.allocate(capacity: passes * buckets)
        histograms.initialize(repeating: 0, count: passes * buckets)
        let mask = UInt64(buckets - 1)
        for i in 0..<count {
            var value = numberKey(records[i])
            for digit in 0..<digitsPerKey {
                histograms[digit * buckets + Int(value & mask)] += 1
                value >>= UInt64(bits)
            }
            guard byOrigin else { continue }
            value = records[i].origin
            for digit in 0..<digitsPerKey {
                histograms[(digitsPerKey + digit) * buckets + Int(value & mask)] += 1
                value >>= UInt64(bits)
            }
        }
        return histograms
    }

    /// One stable counting-sort pass on one digit.
    private static func scatter(from source: UnsafeMutablePointer<SortRecord>, to target: UnsafeMutablePointer<SortRecord>,
                                count: Int, counts: UnsafeMutablePointer<Int>, key: Int, digit: Int) {
        withUnsafeTemporaryAllocation(of: Int.self, capacity: buckets) { next in
            var total = 0
            for bucket in 0..<buckets {
                next[bucket] = total
                total += counts[bucket]
            }
            for i in 0..<count {
                let record = source[i]
                let bucket = digitValue(record, key: key, digit: digit)
                target[next[bucket]] = record
                next[bucket] += 1
            }
        }
    }

    /// Key 0 is the number, key 1 the origin.
    @inline(__always)
    private static func digitValue(_ record: SortRecord, key: Int, digit: Int) -> Int {
        let value = key == 0 ? numberKey(record) : record.origin
        return Int((value >> UInt64(digit * bits)) & UInt64(buckets - 1))
    }

    /// The number as an unsigned key with the same order (the sign bit flipped).
    @inline(__always)
    private static func numberKey(_ record: SortRecord) -> UInt64 {
        UInt64(bitPattern: record.number) ^ (1 << 63)
    }
}
