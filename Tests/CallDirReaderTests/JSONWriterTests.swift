import Testing
@testable import CallDirReader
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

    @Test("appendJSON keeps what the body wrote after what the array held, and nothing more")
    func appends() {
        #expect(Self.written(maxBytes: 0) { _ in } == "prefix:")
        #expect(Self.written { $0.string("a\"b\\c\n\u{1}") } == #"prefix:"a\"b\\c\n\u0001""#)
        let long = String(repeating: "é", count: 255)
        #expect(Self.written(maxBytes: JSONWriter.stringBound(long)) { $0.string(long) } == "prefix:\"\(long)\"")
    }
}
