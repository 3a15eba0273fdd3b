import CallDirReader

/// Which delta walker: one of three that merge OLD with NEW or with a change list, each at its
/// own level. This one (`NumberMerge`) works at the **stored-number level**: one kind's exact
/// numbers of two indexes (ranges are diffed apart, as lists), for `Differ`, which writes a
/// delta file. `Patcher.merge` works at the same stored-number level but in the other
/// direction: OLD's numbers plus a delta's removals and additions, to rebuild NEW.
/// `DeviceDeltaStream` (CallDirReader, Extension/) works at the **device-entry level**: exact
/// numbers and expanded ranges as CallKit holds them, for an extension's update and
/// `diff --report`.
///
/// The streaming merge behind diff: walks one kind's exact numbers of two indexes in step and
/// reports each number only OLD has (removed), only NEW has (added, with NEW's label), and, for
/// identification, each number whose label text differs (removed, then added).
package enum NumberMerge {
    package enum Change {
        case removed(Int64)
        case added(Int64, UnsafeRawBufferPointer?)
    }

    package static func forEachChange(old: CallDirIndex, new: CallDirIndex, identified: Bool,
                                      _ body: (Change) throws -> Void) throws {
        var a = NumberCursor(identified ? old.identified : old.blocked, path: old.path, checkBlocks: !old.isVerified)
        var b = NumberCursor(identified ? new.identified : new.blocked, path: new.path, checkBlocks: !new.isVerified)
        var oldText = LabelText(index: old), newText = LabelText(index: new)
        var x = try a.next(), y = try b.next()
        while true {
            switch (x, y) {
            case (nil, nil):
                return
            case (let p?, let q?) where p == q:
                if identified, try oldText.text(a.labelID) != newText.text(b.labelID) {
                    try body(.removed(p))
                    try newText.withText(b.labelID) { try body(.added(q, $0)) }
                }
                x = try a.next()
                y = try b.next()
            case (let p?, let q) where q == nil || p < q!:
                try body(.removed(p))
                x = try a.next()
            case (_, let q?):
                if identified { try newText.withText(b.labelID) { try body(.added(q, $0)) } } else { try body(.added(q, nil)) }
                y = try b.next()
            default:
                return
            }
        }
    }

    /// The identified changes of `forEachChange`, the same in the same order, where the caller
    /// knows every number that may differ (`candidates`, ascending, once each; the feed's
    /// publisher: the numbers its two deltas touch): each is looked up in both indexes, and
    /// no other number is read (a merge of all of them was most of a composed delta's time).
    package static func forEachChange(old: CallDirIndex, new: CallDirIndex,
                                      among candidates: ((Int64) throws -> Void) throws -> Void,
                                      _ body: (Change) throws -> Void) throws {
        var oldText = LabelText(index: old), newText = LabelText(index: new)
        try withoutActuallyEscaping(body) { body in
            try candidates { n in
                let a = try old.identified.find(n, checkBlock: !old.isVerified, path: old.path)
                let b = try new.identified.find(n, checkBlock: !new.isVerified, path: new.path)
                switch (a, b) {
                case (nil, nil):
                    return
                case (_?, nil):
                    try body(.removed(n))
                case (nil, let q?):
                    try newText.withText(q) { try body(.added(n, $0)) }
                case (let p?, let q?):
                    guard try oldText.text(p) != newText.text(q) else { return }
                    try body(.removed(n))
                    try newText.withText(q) { try body(.added(n, $0)) }
                }
            }
        }
    }

    /// Decoded label text by ref, remembering the last shared ref (runs of one label are common).
    /// The stream store's pages behind the label read are dropped from resident memory every
    /// `releaseStep` bytes: a merge in number order reads stream labels in order, once (a
    /// patch's OLD: 1M labels put several MiB resident at `update`'s peak). Shared labels are
    /// read at random and stay (the store is capped at 65,536 labels).
    package struct LabelText {
        package let index: CallDirIndex
        /// The index's, held here: reached through `index` in `text`, it was copied (its
        /// fields retained and released) per label.
        private let labels: LabelReader
        private let check: Bool
        private var buffer: [UInt8] = []
        private var bufferRef = UInt32.max
        /// File offset up to which the stream store's pages were dropped (nil: none yet).
        private var releasedUpTo: Int?
        private var lastBlock = -1
        package static let releaseStep = 256 << 10

        package init(index: CallDirIndex) {
            self.index = index
            labels = index.labels
            check = !index.isVerified
        }

        package mutating func text(_ ref: UInt32) throws -> [UInt8] {
            if ref != bufferRef || LabelRef.isStream(ref) {
                if LabelRef.isStream(ref), Int(ref & ~LabelRef.streamFlag) / LabelStoreLayout.labelsPerBlock != lastBlock {
                    releaseStream(before: Int(ref & ~LabelRef.streamFlag))
                }
                try labels.bytes(of: ref, check: check, path: index.path, into: &buffer)
                bufferRef = ref
            }
            return buffer
        }

        /// Drops the stream store's blocks before the one holding stream label `i` once they span `releaseStep`.
        /// Once per block, out of line (it copies the store).
        @inline(never)
        private mutating func releaseStream(before i: Int) {
            lastBlock = i / LabelStoreLayout.labelsPerBlock
            let store = labels.stream
            guard i < store.count, let file = index.file.bytes.baseAddress,
                  let block = store.blockBytes(lastBlock)?.bytes.baseAddress, let section = store.section.baseAddress else { return }
            let from = releasedUpTo ?? (section - file)
            let upTo = block - file
            guard upTo - from >= Self.releaseStep else { return }
            index.file.release(from..<upTo)
            releasedUpTo = upTo
        }

        package mutating func withText(_ ref: UInt32, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
            let text = try text(ref)
            try text.withUnsafeBytes { try body($0) }
        }
    }
}
