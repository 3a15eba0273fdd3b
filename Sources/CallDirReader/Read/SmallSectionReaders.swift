/// A range section: sorted, disjoint (first, last) pairs of i64, plus a u32 label id and
/// 4 zero bytes per range in identification ranges.
package struct RangeTableReader {
    package let section: UnsafeRawBufferPointer
    package let count: Int
    package let stride: Int
    package let withLabels: Bool

    /// Checks every record at open (ranges are few: the French operator list is 374): each
    /// range holds valid CallKit numbers of at most 15 digits, first <= last, ranges rise and do not touch the
    /// previous one, and label ids exist. Lookups and iteration then never meet a range they
    /// could trap on, whatever the file says.
    package init(_ section: UnsafeRawBufferPointer, withLabels: Bool, name: String, labelCount: Int, path: String) throws {
        stride = withLabels ? IndexFormat.identifyRangeSize : IndexFormat.blockRangeSize
        guard section.count % stride == 0 else {
            throw CallDirError(.corruptIndex, "\(name): section length \(section.count) is not a multiple of \(stride)", path: path)
        }
        self.section = section
        self.count = section.count / stride
        self.withLabels = withLabels
        var previousLast: Int64 = 0
        for i in 0..<count {
            let r = range(i)
            guard r.first > previousLast, r.first <= r.last, r.last <= E164.largestNumber else {
                throw CallDirError(.corruptIndex, "\(name): range \(i) is out of order, overlapping, empty or out of range",
                                   path: path)
            }
            guard !withLabels || Int(r.label) < labelCount else {
                throw CallDirError(.corruptIndex, "\(name): range \(i) refers to missing label \(r.label)", path: path)
            }
            previousLast = r.last
        }
    }

    @inline(__always)
    package func range(_ i: Int) -> (first: Int64, last: Int64, label: UInt32) {
        let at = i * stride
        return (section.readLE(Int64.self, at: at)!, section.readLE(Int64.self, at: at + 8)!,
                withLabels ? section.readLE(UInt32.self, at: at + 16)! : 0)
    }

    /// How many numbers the ranges cover. Checked disjoint valid numbers at open: below 10^15.
    package var numberCount: Int64 { reduce(0) { $0 + ($1.last - $1.first + 1) } }

    /// The range holding `number` and its label id.
    func find(_ number: Int64) -> (NumberRange, UInt32)? {
        let i = firstIndex(endingAtOrAbove: number)
        guard i < count else { return nil }
        let r = range(i)
        guard r.first <= number else { return nil }
        return (NumberRange(first: r.first, last: r.last), r.label)
    }
}

/// The ranges of a section as a collection, so the one search below serves it.
extension RangeTableReader: RandomAccessCollection {
    package var startIndex: Int { 0 }
    package var endIndex: Int { count }
    package subscript(i: Int) -> (first: Int64, last: Int64, label: UInt32) { range(i) }
}

extension RandomAccessCollection where Index == Int {
    /// The index of the first element ending at or above `number` (`endIndex` when none), in
    /// elements sorted by their `last` number (sorted disjoint ranges), searching from `start`:
    /// a binary search. The one home of "the first range ending above n": range tables,
    /// `DeviceEntryStream.seek`, the simulator's `StoredRuns` and the compiler's `RangeMath`.
    @inline(__always)
    package func firstIndex(endingAtOrAbove number: Int64, from start: Int? = nil, last: (Element) -> Int64) -> Int {
        var low = start ?? startIndex
        var high = endIndex
        while low < high {
            let mid = (low + high) >> 1
            if last(self[mid]) < number { low = mid + 1 } else { high = mid }
        }
        return low
    }
}

extension RangeTableReader {
    /// The index of the first range ending at or above `number` (`count` when none).
    @inline(__always)
    package func firstIndex(endingAtOrAbove number: Int64) -> Int { firstIndex(endingAtOrAbove: number) { $0.last } }
}
