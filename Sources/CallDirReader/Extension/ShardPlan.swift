/// Where `calldir shard --by size` cuts a list: contiguous number intervals, together covering
/// every number, each holding at most `maxEntries` device entries (both kinds counted, as
/// CallKit stores them per extension). A sweep over both kinds' entry segments, so a range of
/// millions of numbers costs O(1) and may be cut inside; exact numbers go a block at a time.
package enum ShardPlan {
    /// The intervals and the entries each holds. `maxEntries` is at least 2 (a number blocked
    /// and labelled is two entries, and never split).
    package static func bySize(_ index: CallDirIndex, maxEntries: Int64) throws -> [(numbers: NumberRange, entries: Int64)] {
        precondition(maxEntries >= 2)
        let streams = [DeviceEntryStream(index: index, kind: .blocking, releasingPages: false),
                       DeviceEntryStream(index: index, kind: .identification, releasingPages: false)]
        for s in streams { try s.seek(after: 0) }
        var plan: [(numbers: NumberRange, entries: Int64)] = []
        var start: Int64 = 0, held: Int64 = 0
        while true {
            let segments = try streams.map { try $0.peekSegment() }
            guard let x = segments.compactMap({ $0?.first }).min() else { break }
            // The piece from x on where the same streams hold every number: weight 1 or 2.
            var y = Int64.max, weight: Int64 = 0
            for s in segments.compactMap({ $0 }) {
                if s.first == x { weight += 1; y = min(y, s.last) } else { y = min(y, s.first - 1) }
            }
            let room = (maxEntries - held) / weight
            if room == 0 {
                plan.append((NumberRange(first: start, last: x - 1), held))
                start = x
                held = 0
                continue
            }
            let through = y - x + 1 <= room ? y : x + room - 1
            held += (through - x + 1) * weight
            for (stream, s) in zip(streams, segments) where s.map({ $0.first <= through }) == true {
                try stream.consume(through: min(through, s!.last))
            }
            if held == maxEntries, through < Int64.max {
                plan.append((NumberRange(first: start, last: through), held))
                start = through + 1
                held = 0
            }
        }
        if held > 0 || plan.isEmpty { plan.append((NumberRange(first: start, last: Int64.max), held)) }
        plan[plan.count - 1].numbers.last = Int64.max
        return plan
    }
}
