/// What an identification entry says about its label: a `UInt32` naming either a shared label
/// (ids 0..<2^31, the shared-labels store) or a stream label (the flag bit set, the low 31
/// bits its position in the stream-labels store). Range records hold shared ids only.
package enum LabelRef {
    package static let streamFlag: UInt32 = 0x8000_0000
    /// Stream labels an index may hold: positions must leave the flag bit free.
    package static let maxStreamLabels = Int(streamFlag) - 1

    @inline(__always)
    package static func stream(_ position: Int) -> UInt32 { streamFlag | UInt32(truncatingIfNeeded: position) }

    @inline(__always)
    package static func isStream(_ ref: UInt32) -> Bool { ref & streamFlag != 0 }
}
