/// A change of the user's layer (an edit, a contact added or removed, an allowance expired)
/// over the same index, in memory: the device holds list ⊕ `old` completely, and one
/// incremental request brings it to list ⊕ `new` by sending only the entries that differ
/// (`PersonalDeltaStream`: both merged streams compared over the spans some rule of either
/// overlay covers, never the whole list). For tests and tools; the app's path is
/// `DeviceLoader(index:overlay:held:)`, which splits a change larger than a request across
/// requests and resumes it from the checkpoint.
///
/// The request removes (blocking, then identification), then adds (blocking, then
/// identification), each ascending: one switch from removing to adding, and a relabelled
/// number's removal and re-addition land in the same request.
package struct PersonalChange {
    /// One entry the change removes or adds.
    package struct Entry: Equatable, Sendable {
        /// The number as CallKit takes it: E.164 digits as an integer.
        package var number: Int64
        /// The identification label; empty for blocking entries and removals.
        package var label: String  // "" for blocking entries and removals
    }

    /// Per kind, what leaves and what comes.
    package private(set) var removals: [DeviceEntryKind: [Entry]] = [:]
    /// Per kind, what the request adds.
    package private(set) var additions: [DeviceEntryKind: [Entry]] = [:]

    /// Changed entries, removals plus additions, both kinds.
    package var count: Int { (Array(removals.values) + Array(additions.values)).reduce(0) { $0 + $1.count } }

    /// The change that brings a device holding `index` ⊕ `old` to `index` ⊕ `new`. Throws
    /// when the index cannot be read.
    package init(index: CallDirIndex, from old: PersonalOverlay, to new: PersonalOverlay) throws {
        for kind in DeviceEntryKind.allCases {
            removals[kind] = try Self.entries(PersonalDeltaStream(index: index, old: old, new: new, kind: kind, removals: true))
            additions[kind] = try Self.entries(PersonalDeltaStream(index: index, old: old, new: new, kind: kind, removals: false))
        }
    }

    static func entries(_ stream: PersonalDeltaStream) throws -> [Entry] {
        try stream.seek(after: 0)
        var entries: [Entry] = []
        while case let n = try stream.fill(max: DeviceEntryStream.chunk), n > 0 {
            for i in 0..<n {
                let label = stream.kind == .identification && !stream.removals ? try stream.label(stream.labelIDs[i]) : ""
                entries.append(Entry(number: stream.numbers[i], label: label))
            }
        }
        return entries
    }

    /// Feeds the change as one incremental request. The caller checked `context.isIncremental`
    /// (a complete request would empty the store: send list ⊕ new through `DeviceLoader`).
    package func feed<C: CallDirectoryContext>(into context: C) {
        for e in removals[.blocking] ?? [] { context.removeBlockingEntry(withPhoneNumber: e.number) }
        for e in removals[.identification] ?? [] { context.removeIdentificationEntry(withPhoneNumber: e.number) }
        for e in additions[.blocking] ?? [] { context.addBlockingEntry(withNextSequentialPhoneNumber: e.number) }
        for e in additions[.identification] ?? [] {
            context.addIdentificationEntry(withNextSequentialPhoneNumber: e.number, label: e.label)
        }
    }
}
