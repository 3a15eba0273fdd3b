/// The changes one kind's device entries need when the user's layer changes over the same
/// list: from list ⊕ `old` to list ⊕ `new`, in one direction (removals: entries `old`'s stream
/// has and `new`'s lacks, or whose label text differs; additions: the converse), ascending.
/// Only numbers under a rule one overlay has and the other lacks can differ
/// (`PersonalOverlay.differingSpans`), so the two merged streams are compared over those spans
/// alone, a seek each: one contact added costs that number, whatever the list's size. Memory:
/// two merged streams and one chunk.
@usableFromInline
final class PersonalDeltaStream {
    @usableFromInline let kind: DeviceEntryKind
    @usableFromInline let removals: Bool
    @usableFromInline let numbers: UnsafeMutablePointer<Int64>
    @usableFromInline let labelIDs: UnsafeMutablePointer<UInt32>

    private let old: PersonalMergeStream
    private let new: PersonalMergeStream
    private let spans: [NumberRange]
    private var spanIndex = 0
    private var oldSide = Side()
    private var newSide = Side()
    private var labelPairs = LabelPairMemo()

    /// A merged stream's chunk and the position in it.
    private struct Side {
        var position = 0
        var count = 0
    }

    /// `spans`: `new.differingSpans(from: old)` when the caller has it.
    init(index: CallDirIndex, old: PersonalOverlay, new: PersonalOverlay?, kind: DeviceEntryKind, removals: Bool, spans: [NumberRange]? = nil) {
        let new = new ?? PersonalOverlay(layer: PersonalLayer(), now: 0)
        self.kind = kind
        self.removals = removals
        self.old = PersonalMergeStream(list: DeviceEntryStream(index: index, kind: kind), overlay: old)
        self.new = PersonalMergeStream(list: DeviceEntryStream(index: index, kind: kind), overlay: new)
        self.spans = spans ?? new.differingSpans(from: old)
        numbers = .allocate(capacity: DeviceEntryStream.chunk)
        labelIDs = .allocate(capacity: DeviceEntryStream.chunk)
    }

    deinit {
        numbers.deallocate()
        labelIDs.deallocate()
    }

    /// Positions both merged streams after `number`, in the first span that ends above it.
    func seek(after number: Int64) throws {
        spanIndex = PersonalMergeStream.firstIndex(spans, endingAbove: number)
        try enterSpan(after: number)
    }

    private func enterSpan(after number: Int64) throws {
        guard spanIndex < spans.count else { return }
        let start = max(spans[spanIndex].first - 1, number)
        try old.seek(after: start)
        try new.seek(after: start)
        oldSide = Side()
        newSide = Side()
    }

    /// Writes the next changes, at most `limit` (and a chunk); returns how many (0: none left).
    func fill(max limit: Int) throws -> Int {
        let limit = min(limit, DeviceEntryStream.chunk)
        var n = 0
        while n < limit, spanIndex < spans.count {
            let last = spans[spanIndex].last
            let a = try peek(old, &oldSide, through: last)
            let b = try peek(new, &newSide, through: last)
            if let a, b == nil || a.0 < b!.0 {
                if removals { emit(a.0, 0, &n) }
                oldSide.position += 1
            } else if let b, a == nil || b.0 < a!.0 {
                if !removals { emit(b.0, b.1, &n) }
                newSide.position += 1
            } else if let a, let b {
                if try !sameLabel(a.1, b.1) { emit(a.0, b.1, &n) }
                oldSide.position += 1
                newSide.position += 1
            } else {
                spanIndex += 1
                try enterSpan(after: last)
            }
        }
        return n
    }

    /// The new stream's label text for ref `id` (additions).
    func label(_ id: UInt32) throws -> String { try new.label(id) }

    private func emit(_ number: Int64, _ label: UInt32, _ n: inout Int) {
        numbers[n] = number
        labelIDs[n] = label
        n += 1
    }

    /// The next entry of `stream` at or below `last`, with its label ref; nil past `last`.
    private func peek(_ stream: PersonalMergeStream, _ side: inout Side, through last: Int64) throws -> (Int64, UInt32)? {
        if side.position == side.count {
            side.count = try stream.fill(max: DeviceEntryStream.chunk)
            side.position = 0
            if side.count == 0 { return nil }
        }
        let number = stream.numbers[side.position]
        return number <= last ? (number, stream.labelIDs[side.position]) : nil
    }

    private func sameLabel(_ a: UInt32, _ b: UInt32) throws -> Bool {
        guard kind == .identification else { return true }
        return try labelPairs.same(a, b) { try old.label(a) == new.label(b) }
    }
}

/// One of an update's four change streams (`DeviceLoader+Update`): a list's changes minus
/// those the overlay hides, or a change of the layer.
@usableFromInline
final class ChangeStream: DeviceFeedSource {
    @usableFromInline let kind: DeviceEntryKind
    @usableFromInline let numbers: UnsafeMutablePointer<Int64>
    @usableFromInline let labelIDs: UnsafeMutablePointer<UInt32>
    private let list: DeviceDeltaStream?
    private let layer: PersonalDeltaStream?
    /// Numbers whose changes the overlay hides (ascending, disjoint), and the cursor in them.
    private let hidden: [NumberRange]
    private var hiddenIndex = 0

    @usableFromInline
    init(list: DeviceDeltaStream, overlay: PersonalOverlay?) {
        self.list = list
        layer = nil
        kind = list.kind
        numbers = list.numbers
        labelIDs = list.labelIDs
        hidden = overlay?.hiding(list.kind) ?? []
    }

    @usableFromInline
    init(layer: PersonalDeltaStream) {
        list = nil
        self.layer = layer
        kind = layer.kind
        numbers = layer.numbers
        labelIDs = layer.labelIDs
        hidden = []
    }

    @usableFromInline
    func seek(after number: Int64) throws {
        if let list { try list.seek(after: number) } else { try layer?.seek(after: number) }
        hiddenIndex = PersonalMergeStream.firstIndex(hidden, endingAbove: number)
    }

    @usableFromInline
    func fill(max limit: Int) throws -> Int {
        guard let list else { return try layer?.fill(max: limit) ?? 0 }
        while true {
            let n = try list.fill(max: limit)
            if n == 0 || hidden.isEmpty { return n }
            var kept = 0
            for i in 0..<n where !isHidden(numbers[i]) {
                numbers[kept] = numbers[i]
                labelIDs[kept] = labelIDs[i]
                kept += 1
            }
            if kept > 0 { return kept }
        }
    }

    @usableFromInline
    func label(_ id: UInt32) throws -> String {
        if let list { return try list.label(id) }
        return try layer?.label(id) ?? ""
    }

    /// Numbers only rise between seeks, so the cursor only moves forward.
    private func isHidden(_ number: Int64) -> Bool {
        while hiddenIndex < hidden.count, hidden[hiddenIndex].last < number { hiddenIndex += 1 }
        return hiddenIndex < hidden.count && hidden[hiddenIndex].first <= number
    }
}

extension PersonalOverlay {
    /// The numbers where a list's change of `kind` does not change list ⊕ self: the
    /// exceptions, and the user's blocks (blocking) or labels (identification).
    func hiding(_ kind: DeviceEntryKind) -> [NumberRange] {
        Self.union(exceptions + (kind == .blocking ? blocked : labels.map(\.numbers)))
    }
}
