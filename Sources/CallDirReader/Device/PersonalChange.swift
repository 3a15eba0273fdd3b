/// A change of the user's layer (an edit, a contact added or removed, an allowance expired)
/// over the same index: the device holds list ⊕ `old` completely, and one incremental request
/// brings it to list ⊕ `new` by sending only the entries that differ. Only numbers under a rule
/// one overlay has and the other lacks can differ (`differingSpans`), so both merged streams
/// are compared over those spans alone (a seek each), never over the whole list. A change
/// larger than a request (`count` above the request size: a new allowance of a million-number
/// prefix) is sent as a complete load of list ⊕ `new` instead.
///
/// The request removes (blocking, then identification), then adds (blocking, then
/// identification), each ascending: one switch from removing to adding, and a relabelled
/// number's removal and re-addition land in the same request. The protocol is a list
/// update's (docs/CALLKIT.md): the app commits the new layer as the device's only after
/// `reloadExtension` succeeded; after a failure the store is empty and the next request is a
/// complete load of list ⊕ `new`.
public struct PersonalChange {
    public struct Entry: Equatable, Sendable {
        public var number: Int64
        public var label: String  // "" for blocking entries
    }

    /// Per kind, what leaves and what comes.
    public private(set) var removals: [DeviceEntryKind: [Entry]] = [:]
    public private(set) var additions: [DeviceEntryKind: [Entry]] = [:]

    /// Changed entries, removals plus additions, both kinds.
    public var count: Int { (Array(removals.values) + Array(additions.values)).reduce(0) { $0 + $1.count } }

    public init(index: CallDirIndex, from old: PersonalOverlay, to new: PersonalOverlay) throws {
        let spans = new.differingSpans(from: old)
        for kind in DeviceEntryKind.allCases {
            var gone: [Entry] = []
            var come: [Entry] = []
            let oldStream = PersonalMergeStream(list: DeviceEntryStream(index: index, kind: kind, releasingPages: false), overlay: old)
            let newStream = PersonalMergeStream(list: DeviceEntryStream(index: index, kind: kind, releasingPages: false), overlay: new)
            for span in spans {
                let before = try Self.entries(oldStream, span)
                let after = try Self.entries(newStream, span)
                Self.diff(before, after, removals: &gone, additions: &come)
            }
            removals[kind] = gone
            additions[kind] = come
        }
    }

    /// The entries of `stream` (list ⊕ an overlay, one kind) within `span`, ascending.
    static func entries(_ stream: PersonalMergeStream, _ span: NumberRange) throws -> [Entry] {
        let kind = stream.kind
        try stream.seek(after: span.first - 1)
        var entries: [Entry] = []
        while true {
            let n = try stream.fill(max: DeviceEntryStream.chunk)
            for i in 0..<n {
                guard stream.numbers[i] <= span.last else { return entries }
                entries.append(Entry(number: stream.numbers[i], label: kind == .blocking ? "" : try stream.label(stream.labelIDs[i])))
            }
            if n == 0 { return entries }
        }
    }

    /// Two-pointer walk: an entry only in `before`, or whose label changed, is removed; one
    /// only in `after`, or relabelled, is added.
    static func diff(_ before: [Entry], _ after: [Entry], removals: inout [Entry], additions: inout [Entry]) {
        var i = 0
        var j = 0
        while i < before.count || j < after.count {
            if j == after.count || (i < before.count && before[i].number < after[j].number) {
                removals.append(before[i])
                i += 1
            } else if i == before.count || after[j].number < before[i].number {
                additions.append(after[j])
                j += 1
            } else {
                if before[i].label != after[j].label {
                    removals.append(before[i])
                    additions.append(after[j])
                }
                i += 1
                j += 1
            }
        }
    }

    /// Feeds the change as one incremental request. The caller checked `context.isIncremental`
    /// (a complete request would empty the store: send list ⊕ new through `DeviceLoader`).
    public func feed<C: CallDirectoryContext>(into context: C) {
        for e in removals[.blocking] ?? [] { context.removeBlockingEntry(withPhoneNumber: e.number) }
        for e in removals[.identification] ?? [] { context.removeIdentificationEntry(withPhoneNumber: e.number) }
        for e in additions[.blocking] ?? [] { context.addBlockingEntry(withNextSequentialPhoneNumber: e.number) }
        for e in additions[.identification] ?? [] {
            context.addIdentificationEntry(withNextSequentialPhoneNumber: e.number, label: e.label)
        }
    }
}
