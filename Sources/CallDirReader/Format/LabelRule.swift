/// Checks a label the way CallKit and a lock screen need it.
package enum LabelRule {
    /// Nil when fine, else the reason the row is rejected.
    package static func problem(_ bytes: UnsafeRawBufferPointer) -> RejectReason? {
        var trimmed = bytes[...]
        while let f = trimmed.first, f == 0x20 || f == 0x09 { trimmed = trimmed.dropFirst() }
        guard !trimmed.isEmpty else { return .emptyLabel }
        guard bytes.count <= IndexFormat.maxLabelBytes else { return .labelTooLong }
        if isPrintableASCII(bytes) { return nil }  // most labels: no scalar decoding needed
        return firstProblem(bytes) { isControl(value: $0) ? .labelControlCharacter : nil }
    }

    /// C0 and C1 controls, and Unicode's bidirectional controls (U+061C, U+200E-F, U+202A-E, U+2066-9), which make the
    /// number beside a label read backwards on a terminal or a lock screen (U+202E), and the
    /// line and paragraph separators and a byte-order mark inside text. Zero-width joiners stay:
    /// emoji sequences and Persian words need them.
    @inline(__always)
    package static func isControl(_ scalar: Unicode.Scalar) -> Bool { isControl(value: scalar.value) }

    @inline(__always)
    static func isControl(value: UInt32) -> Bool {
        value < 0x20 || (0x7F...0x9F).contains(value) || isInvisibleControl(value)
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
        _ = firstProblem(bytes) { value in
            at += 1
            let control = isControl(value: value)
            if control { found = (Unicode.Scalar(value).unsafelyUnwrapped, at) }
            return control ? .labelControlCharacter : nil
        }
        return found
    }

    /// Decodes `bytes` scalar by scalar: `.labelInvalidUTF8` at bad UTF-8, else the first
    /// problem `check` finds in a scalar (its value), or nil. Decoded by hand and inlined into
    /// each check: the standard library's `UTF8` decoder through a byte iterator cost ~780
    /// instructions a label, 1% of a `lookup -` of labels that are not all ASCII.
    @inline(__always)
    private static func firstProblem(_ bytes: UnsafeRawBufferPointer, _ check: (UInt32) -> RejectReason?) -> RejectReason? {
        var at = 0
        while at < bytes.count {
            let lead = UInt32(bytes[at])
            var value = lead
            if lead < 0x80 {
                at &+= 1
            } else {
                guard let (decoded, length) = sequence(bytes, at: at, lead: lead) else { return .labelInvalidUTF8 }
                value = decoded
                at &+= length
            }
            if let problem = check(value) { return problem }
        }
        return nil
    }

    /// The scalar of the 2-4 byte sequence at `at` and its length, or nil when it is not
    /// well-formed (Unicode's table 3-7: no overlong form, surrogate, value past U+10FFFF or
    /// missing byte), as the standard library's decoder judges it.
    @inline(__always)
    private static func sequence(_ bytes: UnsafeRawBufferPointer, at: Int, lead: UInt32) -> (UInt32, Int)? {
        let length: Int, low: UInt32, high: UInt32  // the second byte's range
        switch lead {
        case 0xC2...0xDF: (length, low, high) = (2, 0x80, 0xBF)
        case 0xE0: (length, low, high) = (3, 0xA0, 0xBF)
        case 0xED: (length, low, high) = (3, 0x80, 0x9F)
        case 0xE1...0xEF: (length, low, high) = (3, 0x80, 0xBF)
        case 0xF0: (length, low, high) = (4, 0x90, 0xBF)
        case 0xF1...0xF3: (length, low, high) = (4, 0x80, 0xBF)
        case 0xF4: (length, low, high) = (4, 0x80, 0x8F)
        default: return nil
        }
        guard bytes.count &- at >= length else { return nil }
        let second = UInt32(bytes[at &+ 1])
        guard second >= low, second <= high else { return nil }
        var value = (lead & (0x7F >> UInt32(length))) << 6 | (second & 0x3F)
        for i in 2..<length {
            let next = UInt32(bytes[at &+ i])
            guard next & 0xC0 == 0x80 else { return nil }
            value = value << 6 | (next & 0x3F)
        }
        return (value, length)
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
