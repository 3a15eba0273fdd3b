import Testing
@testable import CallDirReader
import TestSupport

/// `LabelRule` decodes a label's UTF-8 by hand: it must judge every byte string as the
/// standard library's decoder, scalar by scalar, does (the rule it replaced).
@Suite("Label rule (its UTF-8 decoding)")
struct LabelRuleDecodeTests {
    /// The rule as it was: the standard library's `UTF8` decoder over the bytes.
    static func reference(_ bytes: [UInt8]) -> (problem: RejectReason?, control: Int?) {
        guard bytes.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { return (.emptyLabel, nil) }
        guard bytes.count <= IndexFormat.maxLabelBytes else { return (.labelTooLong, nil) }
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var at = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                at += 1
                if LabelRule.isControl(scalar) { return (.labelControlCharacter, at) }
            case .emptyInput: return (nil, nil)
            case .error: return (.labelInvalidUTF8, nil)
            }
        }
    }

    @Test("random bytes around every UTF-8 boundary: the same verdict and the same control's place")
    func agreesWithTheStandardDecoder() {
        var rng = SeededGenerator(seed: 46)
        // Leads and continuations at the edges of table 3-7, controls, bidi and plain text.
        let pieces: [[UInt8]] = [[0x41], [0x20], [0x09], [0x7F], [0x80], [0x8F], [0x90], [0x9F], [0xA0], [0xBF], [0xC0], [0xC1],
                                 [0xC2], [0xDF], [0xE0], [0xE1], [0xEC], [0xED], [0xEE], [0xEF], [0xF0], [0xF1], [0xF3], [0xF4],
                                 [0xF5], [0xFF], [0xC2, 0x85], [0xE2, 0x80, 0xAE], [0xEF, 0xBB, 0xBF], Array("é保😀".utf8)]
        var cases: [[UInt8]] = [[], Array("plain".utf8), [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE0, 0x9F, 0xBF]]
        for _ in 0..<40_000 {
            cases.append((0..<Int.random(in: 1...12, using: &rng)).flatMap { _ in pieces.randomElement(using: &rng)! })
        }
        var seen = Set<String>()
        for bytes in cases {
            let expected = Self.reference(bytes)
            let problem = bytes.withUnsafeBytes { LabelRule.problem($0) }
            #expect(problem == expected.problem, "\(bytes)")
            if expected.problem == .labelControlCharacter {
                #expect(bytes.withUnsafeBytes { LabelRule.firstControl($0)?.character } == expected.control, "\(bytes)")
            }
            seen.insert(problem?.rawValue ?? "fine")
        }
        #expect(seen == ["fine", "empty-label", "label-control-character", "label-invalid-utf8"], "\(seen)")
    }
}
