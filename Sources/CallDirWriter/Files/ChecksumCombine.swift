import CallDirReader

extension Checksum {
    /// CRC of A followed by B, from CRC(A), CRC(B) and B's length (the writer's whole-file CRC).
    /// zlib's `crc32_combine` (1.2.12 and later: CRC(A) times x^(8 * lengthB) modulo the
    /// polynomial, by squaring), in Swift so that the patch target links no zlib.
    package static func combine(_ crcA: UInt32, _ crcB: UInt32, lengthB: Int) -> UInt32 {
        multiplyModP(xPower8n(lengthB), crcA) ^ crcB
    }

    /// The reflected CRC-32 polynomial (the one `crc32` uses).
    private static let reflectedPolynomial: UInt32 = 0xEDB8_8320

    /// a times b modulo the polynomial (bit-reflected: x^0 is the top bit).
    private static func multiplyModP(_ a: UInt32, _ b: UInt32) -> UInt32 {
        var (a, b) = (a, b)
        var m: UInt32 = 1 << 31
        var p: UInt32 = 0
        while true {
            if a & m != 0 {
                p ^= b
                if a & (m - 1) == 0 { break }
            }
            m >>= 1
            b = b & 1 != 0 ? (b >> 1) ^ reflectedPolynomial : b >> 1
        }
        return p
    }

    /// x^(2^k) modulo the polynomial, k = 0..<32.
    private static let powersOfX: [UInt32] = {
        var table: [UInt32] = []
        var p: UInt32 = 1 << 30  // x^1
        for _ in 0..<32 {
            table.append(p)
            p = multiplyModP(p, p)
        }
        return table
    }()

    /// x^(8 * n) modulo the polynomial.
    private static func xPower8n(_ n: Int) -> UInt32 {
        var p: UInt32 = 1 << 31  // x^0
        var n = UInt64(max(n, 0))
        var k = 3
        while n != 0 {
            if n & 1 != 0 { p = multiplyModP(powersOfX[k & 31], p) }
            n >>= 1
            k += 1
        }
        return p
    }
}
