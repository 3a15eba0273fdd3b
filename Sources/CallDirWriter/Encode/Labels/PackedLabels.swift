/// Labels back to back in one buffer, label i ending at `ends[i]`: the symbol table's
/// training sample, and the batches the compile thread hands to the coding thread. Two
/// arrays for any number of labels, where an array per label would allocate per label.
package struct PackedLabels {
    package private(set) var bytes: [UInt8] = []
    package private(set) var ends: [Int] = []

    package var count: Int { ends.count }
    package var isEmpty: Bool { ends.isEmpty }

    package mutating func append(_ label: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: label)
        ends.append(bytes.count)
    }

    package mutating func reserveCapacity(bytes byteCount: Int) { bytes.reserveCapacity(byteCount) }

    package mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
    }

    /// Calls `body` with every label in order. Inlined: a caller's closure that counts into
    /// arrays (the symbol table's training) otherwise checks their uniqueness at every count.
    @inline(__always)
    package func forEach(_ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        try bytes.withUnsafeBytes { all in
            var start = 0
            for end in ends {
                try body(UnsafeRawBufferPointer(rebasing: all[start..<end]))
                start = end
            }
        }
    }
}
