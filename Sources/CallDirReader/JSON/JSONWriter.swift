/// The one JSON writer of calldir: bytes straight into caller-provided memory, no tree and no
/// String per answer, one capacity check per answer rather than per field (callgrind showed
/// per-field buffer writes costing more than the index lookup). `JSONValue`, `calldir lookup
/// --json`, the daemon (answers and `/healthz`) and the feed's files all write through it, so
/// their bytes agree by construction. It lives in the reader, beside `JSONScanner`, so the
/// phone's libraries share it; the lookup answers' members are in CallDirLookup.
/// Its primitives are inlinable: the answers are written from other modules.
///
/// Not public API, and written only through `write(into:capacity:_:)` (or `appendJSON`): the
/// caller gives the bound of what it writes (`stringBound`, `lookupBound`...); a debug build
/// checks every write against it before writing, and every build checks the total after the
/// body, so an overrun traps rather than going on.
package struct JSONWriter {
    @usableFromInline let base: UnsafeMutableRawPointer
    @usableFromInline let capacity: Int
    @usableFromInline var written = 0
    /// Bytes written so far.
    package var count: Int { written }

    @usableFromInline init(_ base: UnsafeMutableRawPointer, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    /// Lets `body` write at most `capacity` bytes at `base`; returns how many it wrote.
    /// Inlinable, so a caller in another module (the daemon) gets its body inlined.
    @inlinable @inline(__always)
    package static func write(into base: UnsafeMutableRawPointer, capacity: Int, _ body: (inout JSONWriter) -> Void) -> Int {
        var writer = JSONWriter(base, capacity: capacity)
        body(&writer)
        precondition(writer.written <= capacity, "JSONWriter overran its bound")
        return writer.written
    }

    /// The most bytes `string` can write for `text`: every byte escaped as \u00XX.
    package static func stringBound(_ text: String) -> Int { 2 + 6 * text.utf8.count }

    @inlinable @inline(__always)
    package mutating func byte(_ value: UInt8) {
        assert(written < capacity, "JSONWriter: a byte past its bound")
        base.storeBytes(of: value, toByteOffset: written, as: UInt8.self)
        written += 1
    }

    @inlinable @inline(__always)
    package mutating func text(_ literal: StaticString) {
        assert(written + literal.utf8CodeUnitCount <= capacity, "JSONWriter: text past its bound")
        (base + written).copyMemory(from: literal.utf8Start, byteCount: literal.utf8CodeUnitCount)
        written += literal.utf8CodeUnitCount
    }

    @inlinable
    package mutating func bytes(_ raw: UnsafeRawBufferPointer) {
        guard let source = raw.baseAddress else { return }
        assert(written + raw.count <= capacity, "JSONWriter: bytes past their bound")
        (base + written).copyMemory(from: source, byteCount: raw.count)
        written += raw.count
    }

    /// "00" to "99": `decimal` writes two digits per division, which halves the chain of
    /// dependent divisions of a phone number's 11-15 digits (a tenth of a `--json` batch).
    @usableFromInline static let digitPairs: StaticString =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    @inlinable
    package mutating func decimal(_ value: Int64) {
        if value < 0 { byte(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var scratch: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits
        let pairs = Self.digitPairs.utf8Start
        withUnsafeMutableBytes(of: &scratch) { digits in
            var at = digits.count
            while magnitude >= 100 {
                let pair = Int(magnitude % 100) &* 2
                magnitude /= 100
                at &-= 2
                digits[at] = pairs[pair]
                digits[at &+ 1] = pairs[pair &+ 1]
            }
            if magnitude >= 10 {
                at &-= 2
                digits[at] = pairs[Int(magnitude) &* 2]
                digits[at &+ 1] = pairs[Int(magnitude) &* 2 &+ 1]
            } else {
                at &-= 1
                digits[at] = UInt8(ascii: "0") &+ UInt8(magnitude)
            }
            bytes(UnsafeRawBufferPointer(rebasing: digits[at...]))
        }
    }

    /// A JSON string literal: `"`, `\` and control characters escaped, everything else (valid
    /// UTF-8, as every Swift String is) copied.
    @inlinable
    package mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { string(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// `string` for text given as bytes, which must be valid UTF-8 (as a view's label is).
    @inlinable
    package mutating func string(utf8: UnsafeRawBufferPointer) {
        byte(UInt8(ascii: "\""))
        let n = utf8.count
        var clean = 0  // start of the run not yet copied
        var i = 0
        while true {
            // Bytes that need no escape (nearly all) are passed over 8 at a time.
            while i &+ 8 <= n, !Self.needsEscape(utf8.loadUnaligned(fromByteOffset: i, as: UInt64.self)) { i &+= 8 }
            while i < n, !Self.needsEscape(utf8[i]) { i &+= 1 }
            bytes(UnsafeRawBufferPointer(rebasing: utf8[clean..<i]))
            guard i < n else { break }
            let b = utf8[i]
            i &+= 1
            clean = i
            switch b {
            case UInt8(ascii: "\""): text("\\\"")
            case UInt8(ascii: "\\"): text("\\\\")
            case UInt8(ascii: "\n"): text("\\n")
            case UInt8(ascii: "\r"): text("\\r")
            case UInt8(ascii: "\t"): text("\\t")
            default:
                text("\\u00")
                byte(hexDigit(b >> 4))
                byte(hexDigit(b))
            }
        }
        byte(UInt8(ascii: "\""))
    }

    @usableFromInline @inline(__always)
    static func needsEscape(_ b: UInt8) -> Bool { b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") }

    /// Whether any byte of `word` is below 0x20, `"` or `\` (exact as a yes/no: the borrows
    /// of the subtractions only reach past a byte that itself matched).
    @usableFromInline @inline(__always)
    static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
        let below = (word &- ones &* 0x20) & ~word
        let zeros = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
        return (below | zeros) & highs != 0
    }

    /// `{"first":..,"last":..}`.
    @inlinable
    package mutating func range(_ range: NumberRange) {
        text("{\"first\":")
        decimal(range.first)
        text(",\"last\":")
        decimal(range.last)
        byte(UInt8(ascii: "}"))
    }
}

extension Array where Element == UInt8 {
    /// Lets `body` write at most `maxBytes` and appends what it wrote. It writes into a
    /// temporary buffer (on the stack when small): growing the array by `maxBytes` zeros first
    /// and trimming them cost `lookup --json -` 7% of its time (a lookup's bound is ~500 bytes).
    @inline(__always)
    package mutating func appendJSON(maxBytes: Int, _ body: (inout JSONWriter) -> Void) {
        withUnsafeTemporaryAllocation(byteCount: maxBytes, alignment: 8) { memory in
            let count = JSONWriter.write(into: memory.baseAddress!, capacity: maxBytes, body)
            append(contentsOf: UnsafeRawBufferPointer(start: memory.baseAddress, count: count))
        }
    }
}
