/// Checks a label the way CallKit and a lock screen need it.
package enum LabelRule {
    /// Nil when fine, else the reason the row is rejected.
    package static func problem(_ bytes: UnsafeRawBufferPointer) -> RejectReason? {
        var trimmed = bytes[...]
        while let f = trimmed.first, f == 0x20 || f == 0x09 { trimmed = trimmed.dropFirst() }
        guard !trimmed.isEmpty else { return .emptyLabel }
        guard bytes.count <= IndexFormat.maxLabelBytes else { return .labelTooLong }
        if isPrintableASCII(bytes) { return nil }  // most labels: no scalar decoding needed
        return firstProblem(bytes) { isControl($0) ? .labelControlCharacter : nil }
    }

    /// C0 and C1 controls, and Unicode's bidirectional controls (U+061C, U+200E-F, U+202A-E, U+2066-9), which make the
    /// number beside a label read backwards on a terminal or a lock screen (U+202E), and the
    /// line and paragraph separators and a byte-order mark inside text. Zero-width joiners stay:
    /// emoji sequences and Persian words need them.
    @inline(__always)
    package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || isInvisibleControl(scalar.value)
    }

    @inline(__always)
    private static func isInvisibleControl(_ value: UInt32) -> Bool {
        guard value >= 0x061C else { return false }
        return value == 0x061C || value == 0x200E || value == 0x200F || (0x202A...0x202E).contains(value)
            || (0x2066...0x2069).contains(value) || value == 0x2028 || value == 0x2029 || value == 0xFEFF
    }

    /// The first control character of a label `problem` refuses as `.labelControlCharacter`,
    /// and its place (1 for the first character), for a message that names it.
    package static func firstControl(_ bytes: UnsafeRawBufferPointer) -> (scalar: Unicode.Scalar, character: Int)? {
        var found: (Unicode.Scalar, Int)?
        var at = 0
        _ = firstProblem(bytes) { scalar in
            at += 1
            let control = isControl(scalar)
            if control { found = (scalar, at) }
            return control ? .labelControlCharacter : nil
        }
        return found
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
