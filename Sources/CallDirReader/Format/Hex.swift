/// Lower-case hex: the one formatter of checksums (eight digits), fingerprints, digests, keys
/// and the `\u00XX` escapes of `JSONWriter`, so every output spells a value the same way.
@usableFromInline let hexDigits: StaticString = "0123456789abcdef"

/// The hex digit of the low four bits of `nibble`.
@inlinable @inline(__always)
package func hexDigit(_ nibble: UInt8) -> UInt8 { hexDigits.utf8Start[Int(nibble & 15)] }

/// `value` as `bitWidth / 4` digits, zero-padded: a CRC-32 as eight, a 64-bit hash as sixteen.
package func hex<Value: FixedWidthInteger & UnsignedInteger>(_ value: Value) -> String {
    var digits = [UInt8](repeating: UInt8(ascii: "0"), count: Value.bitWidth / 4)
    var rest = value
    var at = digits.count
    while rest != 0 {
        at -= 1
        digits[at] = hexDigit(UInt8(truncatingIfNeeded: rest))
        rest >>= 4
    }
    return String(decoding: digits, as: UTF8.self)
}

/// Two digits per byte, in order (digests, keys, signatures).
package func hex<Bytes: Sequence>(bytes: Bytes) -> String where Bytes.Element == UInt8 {
    var digits: [UInt8] = []
    digits.reserveCapacity(bytes.underestimatedCount * 2)
    for byte in bytes {
        digits.append(hexDigit(byte >> 4))
        digits.append(hexDigit(byte))
    }
    return String(decoding: digits, as: UTF8.self)
}
