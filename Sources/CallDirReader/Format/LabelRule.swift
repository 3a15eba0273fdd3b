/// Checks a label the way CallKit and a lock screen need it.
package enum LabelRule {
    /// Nil when fine, else the reason the row is rejected.
    package static func problem(_ bytes: UnsafeRawBufferPointer) -> RejectReason? {
        var trimmed = bytes[...]
        while let f = trimmed.first, f == 0x20 || f == 0x09 { trimmed = trimmed.dropFirst() }
        guard !trimmed.isEmpty else { return .emptyLabel }
        guard bytes.count <= IndexFormat.maxLabelBytes else { return .labelTooLong }
        if isPrintableASCII(bytes) { return nil }  // most labels: no scalar decoding needed
        return firstProblem(bytes) { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) ? .labelControlCharacter : nil }
    }

    /// Decodes `bytes` scalar by scalar: `.labelInvalidUTF8` at bad UTF-8, else the first
    /// problem `check` finds in a scalar, or nil.
    private static func firstProblem(_ bytes: UnsafeRawBufferPointer, _ check: (Unicode.Scalar) -> RejectReason?) -> RejectReason? {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): if let problem = check(scalar) { return problem }
            case .emptyInput: return nil
            case .error: return .labelInvalidUTF8
            }
        }
    }

    /// True when `bytes` are valid UTF-8 (ASCII checked 8 bytes at a time).
    @inline(__always)
    package static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var at = 0
        while bytes.count &- at >= 8 {
            if UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)) & 0x8080_8080_8080_8080 != 0 {
                return decodes(bytes)
            }
            at &+= 8
        }
        while at < bytes.count {
            if bytes[at] >= 0x80 { return decodes(bytes) }
            at &+= 1
        }
        return true
    }

    private static func decodes(_ bytes: UnsafeRawBufferPointer) -> Bool { firstProblem(bytes) { _ in nil } == nil }

    /// True when every byte is in 0x20...0x7E, checked 8 bytes at a time.
    @inline(__always)
    private static func isPrintableASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var at = 0
        while bytes.count &- at >= 8 {
            let w = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self))
            // With every bit 7 clear, subtracting 0x20 from each byte sets bit 7 exactly where a
            // byte is below 0x20, and (b ^ 0x7F) - 1 where b is 0x7F; a borrow can only add
            // false alarms above a true one, so the answer is exact.
            let high: UInt64 = 0x8080_8080_8080_8080
            if w & high != 0 { return false }
            let low = (w &- 0x2020_2020_2020_2020) & high
            let del = ((w ^ 0x7F7F_7F7F_7F7F_7F7F) &- 0x0101_0101_0101_0101) & high
            if low != 0 || del != 0 { return false }
            at &+= 8
        }
        while at < bytes.count {
            let b = bytes[at]
            if b < 0x20 || b > 0x7E { return false }
            at &+= 1
        }
        return true
    }
}
