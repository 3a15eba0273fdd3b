import CallDirPatch
import CallDirReader

/// The delta BASE -> NEW made from two deltas the publisher already has, BASE -> PREVIOUS (in
/// the feed since the last publish) and PREVIOUS -> NEW (today's), instead of merging all of
/// BASE's and NEW's numbers again. Both are sorted change sets, so with R1/A1 the first delta's
/// blocked removals/additions and R2/A2 the second's:
///   removed = (R1 - A2) + (R2 - A1),  added = (A1 - R2) + (A2 - R1)
/// (R1 is disjoint from PREVIOUS and R2 inside it, so each union is of disjoint sets; the same
/// for A1 and A2). The sets are streamed, never held. Everything else in the delta (identified
/// numbers, ranges, labels, NEW's metadata) is `Differ`'s own work on BASE and NEW, so the
/// result is the bytes `calldir diff BASE NEW` writes (`FeedComposeTests`), except that of the
/// identified numbers only those one of the deltas touches are looked up (`touched`): any
/// other kept its presence and label BASE -> PREVIOUS -> NEW (a relabelling is a removal and
/// an addition).
enum DeltaComposer {
    static func compose(base: CallDirIndex, first: DeltaFile, second: DeltaFile, new: CallDirIndex,
                        output: String, temporaryFolder: String) throws -> DeltaSummary {
        guard first.oldChecksum == base.checksum, first.oldSize == base.file.bytes.count,
              first.newChecksum == second.oldChecksum, first.newSize == second.oldSize,
              second.newChecksum == new.checksum, second.newSize == new.file.bytes.count else {
            throw CallDirError(.deltaMismatch, "the deltas \(first.path) and \(second.path) do not chain \(base.path) to \(new.path)",
                               path: first.path)
        }
        func union(_ p: Difference, _ q: Difference, _ body: (Int64) throws -> Void) throws {
            var (p, q) = (p, q)
            var x = try p.next(), y = try q.next()
            while true {
                switch (x, y) {
                case (nil, nil):
                    return
                case (let a?, let b) where b == nil || a < b!:
                    try body(a)
                    x = try p.next()
                case (let a, let b?) where a == nil || b < a!:
                    try body(b)
                    y = try q.next()
                default:
                    throw CallDirError(.deltaMismatch, "the deltas \(first.path) and \(second.path) both change \(x!): they do not chain",
                                       path: first.path)
                }
            }
        }
        let (r1, a1) = (first.blockedCursor(removed: true), first.blockedCursor(removed: false))
        let (r2, a2) = (second.blockedCursor(removed: true), second.blockedCursor(removed: false))
        let known = Differ.KnownChanges(
            removed: { try union(Difference(r1, minus: a2), Difference(r2, minus: a1), $0) },
            added: { try union(Difference(a1, minus: r2), Difference(a2, minus: r1), $0) },
            identifiedTouched: {
                try touched([first.identifiedCursor(removed: true), first.identifiedCursor(removed: false),
                             second.identifiedCursor(removed: true), second.identifiedCursor(removed: false)], $0)
            })
        return try Differ.diff(old: base, new: new, output: output, temporaryFolder: temporaryFolder, known: known)
    }

    /// The numbers the cursors hold (each ascending), once each, ascending.
    static func touched(_ cursors: [NumberCursor], _ body: (Int64) throws -> Void) throws {
        var cursors = cursors
        var heads: [Int64?] = []
        for i in cursors.indices { heads.append(try cursors[i].next()) }
        while let n = heads.lazy.compactMap({ $0 }).min() {
            try body(n)
            for i in cursors.indices where heads[i] == n { heads[i] = try cursors[i].next() }
        }
    }

    /// The numbers of one ascending cursor that another does not hold, ascending.
    struct Difference {
        private var kept: NumberCursor
        private var dropped: NumberCursor
        private var nextDropped: Int64?
        private var started = false

        init(_ kept: NumberCursor, minus dropped: NumberCursor) {
            (self.kept, self.dropped) = (kept, dropped)
        }

        mutating func next() throws -> Int64? {
            if !started { nextDropped = try dropped.next(); started = true }
            while let x = try kept.next() {
                while let y = nextDropped, y < x { nextDropped = try dropped.next() }
                if nextDropped != x { return x }
            }
            return nil
        }
    }
}
