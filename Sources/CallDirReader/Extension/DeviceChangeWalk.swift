/// The changes of one kind's device entries from index OLD to index NEW, both directions in
/// one ascending pass, for reports (`calldir diff --report`): the merge of `DeviceDeltaStream`,
/// which feeds updates, handed out as stretches instead of numbers. Memory is that of the two
/// entry streams, whatever the sizes; a stretch both sides hold with one label is skipped.
package final class DeviceChangeWalk {
    private let stream: DeviceDeltaStream

    package init(old: CallDirIndex, new: CallDirIndex, kind: DeviceEntryKind) {
        stream = DeviceDeltaStream(old: old, new: new, kind: kind, removals: true)
    }

    /// `body(first, last, old, new)` per changed stretch: `old`/`new` are the label refs of the
    /// sides holding it (nil: not held; blocking entries have ref 0). Only OLD: removed; only
    /// NEW: added; both: an identification entry whose label text changed (CallKit: a removal
    /// and an addition).
    package func forEach(_ body: (_ first: Int64, _ last: Int64, _ old: UInt32?, _ new: UInt32?) throws -> Void) throws {
        try stream.seek(after: 0)  // loads the first ranges; a stream starts unpositioned
        try stream.forEachChange(body)
    }

    package func oldLabel(_ ref: UInt32) throws -> String { try stream.oldLabel(ref) }
    package func newLabel(_ ref: UInt32) throws -> String { try stream.label(ref) }
}
