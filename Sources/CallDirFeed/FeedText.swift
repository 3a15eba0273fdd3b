#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CallDirReader

/// Hex digests, RFC 3339 times and durations: the text forms of the manifest.
public enum FeedText {
    /// Lower-case hex, two digits a byte (the reader's one hex formatter).
    public static func hex<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 { CallDirReader.hex(bytes: bytes) }

    /// Lower-case hex of exactly `count` bytes, or nil.
    public static func bytes(hex text: String, count: Int) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count == count * 2 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(count)
        var i = 0
        while i < utf8.count {
            guard let hi = nibble(utf8[i]), let lo = nibble(utf8[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x61...0x66: return c - 0x61 + 10
        default: return nil
        }
    }

    /// `text` with control characters (C0, DEL, C1: escape sequences, carriage returns) as
    /// `\u{1b}`-style escapes, so text from the network cannot drive a terminal or split a log line.
    public static func printable(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Seconds since 1970 now.
    public static func now() -> Int64 { Int64(time(nil)) }

    /// "2026-11-26T12:00:00Z".
    public static func timestamp(_ seconds: Int64) -> String {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// Parses exactly the form `timestamp` writes.
    public static func seconds(timestamp text: String) -> Int64? {
        let u = Array(text.utf8)
        guard u.count == 20, u[4] == 0x2D, u[7] == 0x2D, u[10] == 0x54, u[13] == 0x3A, u[16] == 0x3A, u[19] == 0x5A else { return nil }
        func num(_ r: Range<Int>) -> Int32? {
            var v: Int32 = 0
            for i in r { guard u[i] >= 0x30, u[i] <= 0x39 else { return nil }; v = v * 10 + Int32(u[i] - 0x30) }
            return v
        }
        guard let y = num(0..<4), let mo = num(5..<7), let d = num(8..<10), let h = num(11..<13),
              let mi = num(14..<16), let s = num(17..<19),
              (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 61 else { return nil }
        var parts = tm()
        parts.tm_year = y - 1900
        parts.tm_mon = mo - 1
        parts.tm_mday = d
        parts.tm_hour = h
        parts.tm_min = mi
        parts.tm_sec = s
        return Int64(timegm(&parts))
    }

    /// "90s", "30m", "12h", "7d" (or a bare number of seconds) in seconds.
    public static func duration(_ text: String) -> Int64? {
        guard let last = text.last else { return nil }
        let scale: Int64
        var body = Substring(text)
        switch last {
        case "s": scale = 1; body = body.dropLast()
        case "m": scale = 60; body = body.dropLast()
        case "h": scale = 3600; body = body.dropLast()
        case "d": scale = 86400; body = body.dropLast()
        default: scale = 1
        }
        guard let value = Int64(body), value > 0, value <= Int64.max / scale else { return nil }
        return value * scale
    }
}
