import Testing
@testable import CallDirLookup
import CallDirReader
import TestSupport

/// The byte writer behind every answer line and JSON reply.
@Suite("JSONWriter")
struct JSONWriterTests {
    static func written(maxBytes: Int = 64, _ body: (inout JSONWriter) -> Void) -> String {
        var out: [UInt8] = Array("prefix:".utf8)
        out.appendJSON(maxBytes: maxBytes, body)
        return String(decoding: out, as: UTF8.self)
    }

    @Test("decimals of every length, both signs and the extremes, as String(describing:) writes them")
    func decimals() {
        var values: [Int64] = [0, 1, 9, 10, 11, 99, 100, 101, 999, 1_000, Int64.max, Int64.min, Int64.min + 1]
        var power: Int64 = 1
        for _ in 0..<18 {
            power *= 10
            values += [power - 1, power, power + 1, power + 7 * (power / 10), -power, -(power - 1)]
        }
        var rng = SeededGenerator(seed: 7)
        values += (0..<2_000).map { _ in Int64.random(in: Int64.min...Int64.max, using: &rng) }
        values += (0..<2_000).map { _ in Int64.random(in: 0...999_999_999_999_999, using: &rng) }
        for value in values {
            #expect(Self.written { $0.decimal(value) } == "prefix:\(value)")
        }
    }

    /// JSON string escaping, one byte at a time: what `string(utf8:)` must write.
    static func reference(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x22]
        for b in bytes {
            switch b {
            case 0x22: out += Array("\\\"".utf8)
            case 0x5C: out += Array("\\\\".utf8)
            case 0x0A: out += Array("\\n".utf8)
            case 0x0D: out += Array("\\r".utf8)
            case 0x09: out += Array("\\t".utf8)
            case 0..<0x20: out += Array(("\\u00" + (b < 16 ? "0" : "") + String(b, radix: 16)).utf8)
            default: out.append(b)
            }
        }
        return out + [0x22]
    }

    static func escaped(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.appendJSON(maxBytes: 2 + 6 * bytes.count) { w in bytes.withUnsafeBytes { w.string(utf8: $0) } }
        return out
    }

    @Test("strings: every byte that needs an escape, at every place in and across 8-byte words")
    func strings() {
        let special: [UInt8] = Array(0..<0x20) + [0x22, 0x5C]
        // Neighbours of the special bytes, and bytes of 0x80 or more (UTF-8's), which pass as they are.
        let plain: [UInt8] = [0x20, 0x21, 0x23, 0x41, 0x5B, 0x5D, 0x7E, 0x7F, 0x80, 0xA2, 0xC3, 0xDC, 0xFF]
        for length in 0...20 {
            for position in 0..<max(length, 1) {
                for s in special {
                    var bytes = (0..<length).map { plain[$0 % plain.count] }
                    if length > 0 { bytes[position] = s }
                    #expect(Self.escaped(bytes) == Self.reference(bytes), "length \(length), byte \(s) at \(position)")
                }
            }
        }
        // Text without escapes (ASCII and UTF-8, whose bytes are all 0x80 or more) is copied whole.
        let text = Array("Müller & Söhne GmbH, Zürich — 保险推销 ~ Telemarketer".utf8)
        #expect(Self.escaped(text) == [0x22] + text + [0x22])
    }

    @Test("appendJSON keeps what the body wrote after what the array held, and nothing more")
    func appends() {
        #expect(Self.written(maxBytes: 0) { _ in } == "prefix:")
        #expect(Self.written { $0.string("a\"b\\c\n\u{1}") } == #"prefix:"a\"b\\c\n\u0001""#)
        let long = String(repeating: "é", count: 255)
        #expect(Self.written(maxBytes: JSONWriter.stringBound(long)) { $0.string(long) } == "prefix:\"\(long)\"")
    }
}
