import CallDirNumbers
import CallDirReader
/// The export's view of an index's entries, with label texts: the walks themselves are the
/// reader's `DeviceEntryStream` (exact numbers plus ranges, each number once, the exact label
/// wins), so exports, the device feed and `verify` agree by construction.
struct EntryWalk {
    let index: CallDirIndex

    private func stream(_ kind: DeviceEntryKind) -> DeviceEntryStream { DeviceEntryStream(index: index, kind: kind) }

    /// Blocking entries as stored, ascending: exact numbers and, before the first number above
    /// their start, whole ranges. Exact numbers inside a range are kept (the index keeps them).
    func blocked(number: (Int64) throws -> Void, range: (NumberRange) throws -> Void) throws {
        try stream(.blocking).forEachStored(number: { n, _ in try number(n) }, range: { r, _ in try range(r) })
    }

    /// Identification entries as stored, as `blocked`, with their labels.
    func identified(number: (Int64, String) throws -> Void, range: (NumberRange, String) throws -> Void) throws {
        let entries = stream(.identification)
        try entries.forEachStored(number: { try number($0, entries.label($1)) }, range: { try range($0, entries.label($1)) })
    }

    /// Every blocked number once, ranges expanded, ascending.
    func blockedExpanded(_ body: (Int64) throws -> Void) throws {
        try stream(.blocking).forEach { n, _ in try body(n) }
    }

    /// Every identified number once with its label, ranges expanded (an exact entry's label
    /// wins inside a range, as in a lookup), ascending.
    func identifiedExpanded(_ body: (Int64, String) throws -> Void) throws {
        let entries = stream(.identification)
        try entries.forEach { n, ref in try body(n, entries.label(ref)) }
    }

    /// Every expanded entry of `kind` ascending with the other kind's entry for the same
    /// number: `body(number, label, blocked)` walking blocked numbers gives the number's
    /// identification label (nil: none); walking identified ones, its label and whether it is
    /// blocked. A merge of the two kinds' streams, not a lookup per number.
    func expanded(_ kind: DeviceEntryKind, _ body: (_ number: Int64, _ label: String?, _ blocked: Bool) throws -> Void) throws {
        let blocked = stream(.blocking)
        let identified = stream(.identification)
        if kind == .blocking {
            try blocked.forEach(joining: identified) { n, _, ref in try body(n, ref.map(identified.label), true) }
        } else {
            try identified.forEach(joining: blocked) { n, ref, other in try body(n, identified.label(ref), other != nil) }
        }
    }

    /// How many numbers an expanding export of `kind` lists (the union for `.all`).
    func expandedCount(_ kind: ExportKind) throws -> Int64 {
        switch kind {
        case .block: return try stream(.blocking).count()
        case .identify: return try stream(.identification).count()
        case .all:
            var onlyIdentified: Int64 = 0
            try stream(.identification).forEach(joining: stream(.blocking)) { _, _, blocked in if blocked == nil { onlyIdentified += 1 } }
            return try stream(.blocking).count() + onlyIdentified
        }
    }

    /// A cheap upper bound of `expandedCount` (exact numbers inside ranges counted twice),
    /// from the sections themselves, never from metadata (which nothing checks at open: a
    /// forged count near Int64.max must not overflow, and a forged range must not hide behind
    /// an unchanged count). Saturates at Int64.max.
    func expandedBound(_ kind: ExportKind) -> Int64 {
        var parts: [Int64] = []
        if kind != .identify { parts += [Int64(index.blockedCount), rangeNumbers(.block)] }
        if kind != .block { parts += [Int64(index.identifiedCount), rangeNumbers(.identify)] }
        return parts.reduce(0) { total, part in
            let (sum, overflow) = total.addingReportingOverflow(part)
            return overflow ? .max : sum
        }
    }

    /// Numbers covered by the ranges of one kind: exact, as ranges of a kind are disjoint
    /// (checked at open), so an expanding export lists at least this many. Valid numbers are
    /// below 10^15, so the sum of disjoint ranges cannot overflow.
    func rangeNumbers(_ kind: ExportKind) -> Int64 {
        (kind == .identify ? index.identifiedRanges : index.blockedRanges).numberCount
    }
}
