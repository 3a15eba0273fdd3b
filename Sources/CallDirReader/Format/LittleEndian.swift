/// Little-endian packing for building file bytes.
extension Array where Element == UInt8 {
    package mutating func appendLE<T: FixedWidthInteger>(_ value: T) {
        var v = value.littleEndian
        Swift.withUnsafeBytes(of: &v) { append(contentsOf: $0) }
    }
}

/// Bounds-checked little-endian reads from untrusted bytes.
extension UnsafeRawBufferPointer {
    /// The value at `offset`, or nil when it does not fit: callers treat that as damage.
    @inline(__always)
    package func readLE<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T? {
        guard offset >= 0, offset <= count - MemoryLayout<T>.size else { return nil }
        return T(littleEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}
