/// Which delta walker: one of three, each at its own level. This one (`DeviceDeltaStream`)
/// works at the **device-entry level**: exact numbers and expanded ranges, each number once, as
/// CallKit holds them (two `DeviceEntryStream`s), for an extension's update
/// (`DeviceLoader+Update`) and `diff --report` (`DeviceChangeWalk`). The other two work at the
/// **stored-number level** of the file format, in the compiler: `NumberMerge` (two indexes'
/// exact numbers, for `Differ`, which writes a delta file) and `Patcher.merge` (OLD's exact
/// numbers plus a delta file's changes, to rebuild NEW).
///
/// The changes one kind's device entries need to go from index OLD to index NEW, in one
/// direction: removals (entries of OLD absent from NEW) or additions (entries of NEW absent
/// from OLD), ascending. An identification entry whose label text changed is both: CallKit
/// replaces a label by a removal and an addition.
///
/// It merges the two `DeviceEntryStream`s segment by segment (a stretch of a range below the
/// next exact number, or one exact number), so the changes are minimal by construction (a
/// range shrunk by 10 numbers is 10 removals) and a stretch both sides hold with one label is
/// skipped in O(1), however long. Memory is that of the two streams plus one chunk.
@usableFromInline
final class DeviceDeltaStream {
    @usableFromInline let kind: DeviceEntryKind
    @usableFromInline let removals: Bool
    /// The chunk `fill` wrote: numbers, and NEW's label refs for identification additions.
    @usableFromInline let numbers: UnsafeMutablePointer<Int64>
    @usableFromInline let labelIDs: UnsafeMutablePointer<UInt32>
    /// The last change handed out (or the number `seek` was given): where a later request resumes.
    @usableFromInline @exclusivity(unchecked) private(set) var lastNumber: Int64 = 0

    private let old: DeviceEntryStream
    private let new: DeviceEntryStream
    @exclusivity(unchecked) private var labelPairs = LabelPairMemo()

    @usableFromInline
    init(old: CallDirIndex, new: CallDirIndex, kind: DeviceEntryKind, removals: Bool) {
        self.kind = kind
        self.removals = removals
        self.old = DeviceEntryStream(index: old, kind: kind)
        self.new = DeviceEntryStream(index: new, kind: kind)
        numbers = .allocate(capacity: DeviceEntryStream.chunk)
        labelIDs = .allocate(capacity: DeviceEntryStream.chunk)
    }

    deinit {
        numbers.deallocate()
        labelIDs.deallocate()
    }

    /// Positions both streams after `number` (0: at the start): two seeks, not a scan.
    @usableFromInline
    func seek(after number: Int64) throws {
        try old.seek(after: number)
        try new.seek(after: number)
        lastNumber = number
    }

    /// Writes the next changes, at most `limit` (and a chunk), to `numbers` (and `labelIDs`);
    /// returns how many (0: none left).
    @usableFromInline
    func fill(max limit: Int) throws -> Int {
        try advance(max: min(limit, DeviceEntryStream.chunk))
    }

    /// True when no change is left. Skips the stretches without changes before the next one,
    /// so a phase whose last change was fed reads as finished.
    @usableFromInline
    func atEnd() throws -> Bool {
        try advance(max: 0) == 0 && old.peekSegment() == nil && new.peekSegment() == nil
    }

    /// NEW's label text for ref `id` (additions).
    @usableFromInline
    func label(_ id: UInt32) throws -> String { try new.label(id) }

    /// The merge: each turn takes the stretch from the lowest next number on which the set of
    /// sides holding it does not change, emits it if it is a change in this direction, and
    /// consumes it. Stops before a change once `limit` are written.
    private func advance(max limit: Int) throws -> Int {
        var n = 0
        var a = try old.peekSegment()
        var b = try new.peekSegment()
        while let (low, last, inOld, inNew) = Self.stretch(a, b) {
            var high = last
            let changed: Bool
            if inOld, inNew, let a, let b {
                changed = try !sameLabel(a.label, b.label)
            } else {
                changed = inOld ? removals : !removals
            }
            if changed {
                guard n < limit else { break }
                let count = Int(min(Int64(limit - n), high - low + 1))
                for i in 0..<count { numbers[n &+ i] = low &+ Int64(i) }
                if !removals, let b { labelIDs.advanced(by: n).update(repeating: b.label, count: count) }
                n += count
                high = low + Int64(count) - 1
                lastNumber = high
            }
            try consume(through: high, inOld: inOld, inNew: inNew, &a, &b)
        }
        return n
    }

    /// Every change of this kind in both directions, ascending, as stretches: `old` and `new`
    /// are the label refs of the sides holding the stretch (nil: that side lacks it; both set:
    /// the label text changed). `calldir diff --report` counts these: removals are the
    /// stretches OLD holds, additions those NEW holds, as the update's two phases feed them.
    func forEachChange(_ body: (_ first: Int64, _ last: Int64, _ old: UInt32?, _ new: UInt32?) throws -> Void) throws {
        var a = try old.peekSegment()
        var b = try new.peekSegment()
        while let (low, high, inOld, inNew) = Self.stretch(a, b) {
            if inOld, inNew, let a, let b {
                if try !sameLabel(a.label, b.label) { try body(low, high, a.label, b.label) }
            } else {
                try body(low, high, inOld ? a?.label : nil, inNew ? b?.label : nil)
            }
            try consume(through: high, inOld: inOld, inNew: inNew, &a, &b)
        }
    }

    /// OLD's label text for ref `id` (removals).
    func oldLabel(_ id: UInt32) throws -> String { try old.label(id) }

    /// Moves the sides that hold the stretch ending at `high` past it; `a` and `b` become
    /// their next segments.
    @inline(__always)
    private func consume(through high: Int64, inOld: Bool, inNew: Bool,
                         _ a: inout (first: Int64, last: Int64, label: UInt32)?,
                         _ b: inout (first: Int64, last: Int64, label: UInt32)?) throws {
        if inOld {
            try old.consume(through: high)
            a = try old.peekSegment()
        }
        if inNew {
            try new.consume(through: high)
            b = try new.peekSegment()
        }
    }

    /// The stretch from the lowest next number of the two sides' next segments on which the
    /// set of sides holding it does not change; nil when both are done.
    @inline(__always)
    private static func stretch(_ a: (first: Int64, last: Int64, label: UInt32)?, _ b: (first: Int64, last: Int64, label: UInt32)?)
        -> (low: Int64, high: Int64, inOld: Bool, inNew: Bool)? {
        guard a != nil || b != nil else { return nil }
        let low = min(a?.first ?? .max, b?.first ?? .max)
        let inOld = a.map { $0.first == low } ?? false
        let inNew = b.map { $0.first == low } ?? false
        if inOld, inNew, let a, let b { return (low, min(a.last, b.last), true, true) }
        if inOld, let a { return (low, min(a.last, (b?.first ?? .max) - 1), true, false) }
        return (low, min(b!.last, (a?.first ?? .max) - 1), false, true)
    }

    /// True when OLD's label `a` and NEW's label `b` have the same text (blocking: always).
    private func sameLabel(_ a: UInt32, _ b: UInt32) throws -> Bool {
        guard kind == .identification else { return true }
        return try labelPairs.same(a, b) { try old.label(a) == new.label(b) }
    }
}

/// Whether OLD's label `a` and NEW's label `b` have the same text, remembering the last pair
/// asked: neighbouring numbers mostly carry the same two labels, and each comparison decodes
/// both texts. Shared by the delta walkers of device entries (this one, `PersonalDeltaStream`).
struct LabelPairMemo {
    private var last: (old: UInt32, new: UInt32, equal: Bool)?

    mutating func same(_ a: UInt32, _ b: UInt32, compare: () throws -> Bool) rethrows -> Bool {
        if let last, last.old == a, last.new == b { return last.equal }
        let equal = try compare()
        last = (a, b, equal)
        return equal
    }
}
