/// Lookup workloads drawn from a generated list.
public enum Queries {
    /// `count` numbers in random order: `hitPercent` % are members of `sorted` (drawn with
    /// repetition), the rest valid NANP numbers that are not. Same arguments, same queries.
    public static func make(from sorted: [Int64], count: Int, hitPercent: Int, seed: UInt64) -> [Int64] {
        precondition((0...100).contains(hitPercent))
        precondition(hitPercent == 0 || !sorted.isEmpty, "hits need a non-empty list")
        var random = SeededRandom(seed: seed ^ 0x5155_4552_4945_5321)  // "QUERIES!"
        var out: [Int64] = []
        out.reserveCapacity(count)
        let hits = count * hitPercent / 100
        for _ in 0..<hits {
            out.append(sorted[Int(random.next() % UInt64(sorted.count))])
        }
        while out.count < count {
            let candidate = NANPSpace.number(at: Int64(random.next() % UInt64(NANPSpace.size)))
            if !contains(sorted, candidate) { out.append(candidate) }
        }
        for i in stride(from: out.count - 1, to: 0, by: -1) {  // Fisher-Yates: hits and misses mixed
            out.swapAt(i, Int(random.next() % UInt64(i + 1)))
        }
        return out
    }

    static func contains(_ sorted: [Int64], _ x: Int64) -> Bool {
        var low = 0
        var high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if sorted[mid] < x { low = mid + 1 } else { high = mid }
        }
        return low < sorted.count && sorted[low] == x
    }
}

extension SeededRandom {
    /// Shuffles `values` in place (Fisher-Yates), deterministically.
    public mutating func shuffle(_ values: inout [Int64]) {
        for i in stride(from: values.count - 1, to: 0, by: -1) {
            values.swapAt(i, Int(next() % UInt64(i + 1)))
        }
    }
}
