/// The walks over one kind's entries that code outside the device feed needs (exports,
/// `verify`'s recount, tests), built on the stream so that "exact numbers plus ranges, each
/// number once, the exact label wins" has one home. Each walk starts from the first entry.
extension DeviceEntryStream {
    /// Every device entry, ascending, with its label ref (0 for blocking entries).
    package func forEach(_ body: (_ number: Int64, _ label: UInt32) throws -> Void) throws {
        try seek(after: 0)
        while case let n = try fill(max: Self.chunk), n > 0 {
            for i in 0..<n { try body(numbers[i], kind == .identification ? labelIDs[i] : 0) }
        }
    }

    /// Every device entry, as `forEach`, with the entry `other` (a stream of the other kind)
    /// holds for the same number: its label ref, or nil when `other` does not hold it. A merge
    /// of the two ascending streams, not a lookup per number.
    package func forEach(joining other: DeviceEntryStream,
                         _ body: (_ number: Int64, _ label: UInt32, _ other: UInt32?) throws -> Void) throws {
        try other.seek(after: 0)
        var segment = try other.peekSegment()
        try forEach { n, label in
            while let s = segment, s.last < n {
                try other.consume(through: s.last)
                segment = try other.peekSegment()
            }
            try body(n, label, segment.flatMap { $0.first <= n ? $0.label : nil })
        }
    }
}
