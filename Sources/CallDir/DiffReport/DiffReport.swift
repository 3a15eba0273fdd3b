import CallDirNumbers
import CallDirReader
import CallDirWriter

/// `calldir diff OLD NEW --report`: what a change does on a device, for a reviewer. Made by
/// one streaming pass per kind over the two indexes' device entries (`DeviceChangeWalk`, the
/// merge that feeds updates), plus a merge of the two range tables; memory is bounded
/// whatever the sizes: the label-change counts are a bounded map (`LabelChangeCounter`),
/// examples a few per item.
package struct DiffReport: Sendable {
    /// One kind's device entries: numbers only NEW holds, only OLD holds, and (identification)
    /// numbers both hold whose label text changed. Ranges count by size. A device update
    /// removes `removed + relabeled` entries and adds `added + relabeled` (`simulate --from`).
    package struct KindChanges: Sendable {
        package var added: Int64 = 0
        package var removed: Int64 = 0
        package var relabeled: Int64 = 0
        /// The first changed stretches, ascending (a single number is first == last).
        package var addedExamples: [NumberRange] = []
        package var removedExamples: [NumberRange] = []
        /// Identification: the label of each added example in NEW (a reviewer checks what
        /// callers will see), parallel to `addedExamples`; empty for blocking.
        package var addedLabels: [String] = []

        package var deviceRemovals: Int64 { removed + relabeled }
        package var deviceAdditions: Int64 { added + relabeled }
    }

    /// One kind's range records (as stored: merged, after the allowlist): a NEW range
    /// overlapping no OLD one is added, an OLD one overlapping no NEW one removed, a NEW range
    /// overlapping OLD ones without being one of them resized; same bounds, other label: relabeled.
    package struct RangeChanges: Sendable {
        package var added = 0
        package var removed = 0
        package var resized = 0
        package var relabeled = 0
        package var unchanged = 0
        package var addedExamples: [NumberRange] = []
        package var removedExamples: [NumberRange] = []
        /// (an OLD range, the NEW range it overlaps)
        package var resizedExamples: [(old: NumberRange, new: NumberRange)] = []
    }

    package struct LabelChange: Sendable {
        package var from: String
        package var to: String
        package var numbers: Int64
        package var examples: [Int64]
    }

    package var oldPath: String
    package var newPath: String
    package var oldChecksum: UInt32
    package var newChecksum: UInt32
    package var blocking = KindChanges()
    package var identification = KindChanges()
    package var blockingRanges = RangeChanges()
    package var identificationRanges = RangeChanges()
    /// The most frequent label changes (OLD text -> NEW text), most numbers first.
    package var topLabelChanges: [LabelChange] = []
    /// Distinct label changes seen (exact while at most `LabelChangeCounter.capacity`).
    package var distinctLabelChanges = 0
    /// True when more distinct label changes were seen than the counter keeps: the counts
    /// shown are then lower bounds.
    package var labelChangesApproximate = false
    package var oldDeviceEntries: Int64
    package var newDeviceEntries: Int64
    package var maxNumbers: Int64?
    package var seconds = 0.0

    /// How many examples each item keeps, and how many label changes are shown.
    package static let examples = 5
    package static let labelExamples = 3
    package static let topLabels = 10
    /// Distinct label changes counted at a time (`LabelChangeCounter`).
    package static var labelChangeCapacity: Int { LabelChangeCounter.capacity }
    /// A budget warning starts at this share of `--max-numbers`.
    package static let budgetWarningShare = 0.9

    package enum BudgetState: String, Sendable { case none, ok, near, over }

    package var budgetState: BudgetState {
        guard let maxNumbers else { return .none }
        if newDeviceEntries > maxNumbers { return .over }
        return Double(newDeviceEntries) >= Double(maxNumbers) * Self.budgetWarningShare ? .near : .ok
    }

    package static func make(old: CallDirIndex, new: CallDirIndex, maxNumbers: Int64? = nil) throws -> DiffReport {
        let started = monotonicSeconds()
        var report = DiffReport(oldPath: old.path, newPath: new.path, oldChecksum: old.checksum, newChecksum: new.checksum,
                                oldDeviceEntries: old.metadata.deviceEntries, newDeviceEntries: new.metadata.deviceEntries,
                                maxNumbers: maxNumbers)
        var counter = LabelChangeCounter()  // blocking entries have no label to change
        report.blocking = try walk(old: old, new: new, kind: .blocking, labels: &counter)
        report.identification = try walk(old: old, new: new, kind: .identification, labels: &counter)
        report.topLabelChanges = counter.top(topLabels)
        report.distinctLabelChanges = counter.distinct
        report.labelChangesApproximate = counter.pruned
        report.blockingRanges = try compareRanges(old: old, new: new, old.blockedRanges, new.blockedRanges)
        report.identificationRanges = try compareRanges(old: old, new: new, old.identifiedRanges, new.identifiedRanges)
        report.seconds = monotonicSeconds() - started
        return report
    }

    private static func walk(old: CallDirIndex, new: CallDirIndex, kind: DeviceEntryKind,
                             labels: inout LabelChangeCounter) throws -> KindChanges {
        var changes = KindChanges()
        let walk = DeviceChangeWalk(old: old, new: new, kind: kind)
        var lastPair: (old: UInt32, new: UInt32, key: LabelChangeCounter.Key)?
        try walk.forEach { first, last, oldRef, newRef in
            let size = last - first + 1
            switch (oldRef, newRef) {
            case (nil, let b?):
                changes.added += size
                if changes.addedExamples.count < examples {
                    changes.addedExamples.append(NumberRange(first: first, last: last))
                    if kind == .identification { changes.addedLabels.append(try walk.newLabel(b)) }
                }
            case (_?, nil):
                changes.removed += size
                if changes.removedExamples.count < examples { changes.removedExamples.append(NumberRange(first: first, last: last)) }
            case (let a?, let b?):
                changes.relabeled += size
                let key: LabelChangeCounter.Key
                if let lastPair, lastPair.old == a, lastPair.new == b, !LabelRef.isStream(a), !LabelRef.isStream(b) {
                    key = lastPair.key
                } else {
                    key = .init(from: try walk.oldLabel(a), to: try walk.newLabel(b))
                    lastPair = (a, b, key)
                }
                labels.add(key, numbers: size, example: first)
            default:
                break
            }
        }
        return changes
    }

    /// A merge of two sorted, disjoint range tables (see `RangeChanges`).
    private static func compareRanges(old: CallDirIndex, new: CallDirIndex, _ a: RangeTableReader,
                                      _ b: RangeTableReader) throws -> RangeChanges {
        var changes = RangeChanges()
        var i = 0, j = 0
        var oldHit = false, newHit = false
        func finishOld(_ r: NumberRange) {
            if !oldHit {
                changes.removed += 1
                if changes.removedExamples.count < examples { changes.removedExamples.append(r) }
            }
            i += 1
            oldHit = false
        }
        func finishNew(_ r: NumberRange) {
            if newHit { changes.resized += 1 } else {
                changes.added += 1
                if changes.addedExamples.count < examples { changes.addedExamples.append(r) }
            }
            j += 1
            newHit = false
        }
        while i < a.count || j < b.count {
            let o = i < a.count ? a.range(i) : nil
            let n = j < b.count ? b.range(j) : nil
            let oldRange = o.map { NumberRange(first: $0.first, last: $0.last) }
            let newRange = n.map { NumberRange(first: $0.first, last: $0.last) }
            guard let o, let n, let oldRange, let newRange else {
                if let oldRange { finishOld(oldRange) } else if let newRange { finishNew(newRange) }
                continue
            }
            if o.last < n.first { finishOld(oldRange); continue }
            if n.last < o.first { finishNew(newRange); continue }
            if o.first == n.first, o.last == n.last, !oldHit, !newHit {
                if a.withLabels, try old.label(o.label) != new.label(n.label) { changes.relabeled += 1 } else { changes.unchanged += 1 }
                i += 1
                j += 1
                continue
            }
            if !newHit, changes.resizedExamples.count < examples { changes.resizedExamples.append((oldRange, newRange)) }
            oldHit = true
            newHit = true
            if o.last < n.last { finishOld(oldRange) } else if n.last < o.last { finishNew(newRange) } else {
                finishOld(oldRange)
                newHit = true
                finishNew(newRange)
            }
        }
        return changes
    }
}

/// Label changes (OLD text -> NEW text) by numbers changed, in bounded memory: at most
/// `capacity` changes are counted at a time; when more distinct changes come, the map is cut
/// back to the `capacity / 2` with the most numbers (the counts of changes dropped and seen
/// again restart, so counts are then lower bounds and `pruned` says so).
struct LabelChangeCounter {
    struct Key: Hashable, Sendable {
        var from: String
        var to: String
    }

    static let capacity = 2048
    private var counts: [Key: (numbers: Int64, examples: [Int64])] = [:]
    private(set) var pruned = false
    private(set) var distinct = 0

    mutating func add(_ key: Key, numbers: Int64, example: Int64) {
        if var entry = counts[key] {
            entry.numbers += numbers
            if entry.examples.count < DiffReport.labelExamples { entry.examples.append(example) }
            counts[key] = entry
            return
        }
        if !pruned { distinct += 1 }
        if counts.count >= Self.capacity {
            let kept = counts.sorted { $0.value.numbers > $1.value.numbers }.prefix(Self.capacity / 2)
            counts = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
            pruned = true
        }
        counts[key] = (numbers, [example])
    }

    /// The `k` changes with the most numbers (ties: by text), most first.
    func top(_ k: Int) -> [DiffReport.LabelChange] {
        counts.sorted { ($0.value.numbers, $1.key.from, $1.key.to) > ($1.value.numbers, $0.key.from, $0.key.to) }
            .prefix(k).map { DiffReport.LabelChange(from: $0.key.from, to: $0.key.to, numbers: $0.value.numbers, examples: $0.value.examples) }
    }
}
