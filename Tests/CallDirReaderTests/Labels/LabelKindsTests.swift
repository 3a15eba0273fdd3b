import Testing
@testable import CallDirReader
import TestSupport

/// `LabelKinds`, the check a read runs on each label from the kinds its decode gathered, says
/// what decoding the label and asking `LabelRule` says: the same labels refused, for the same reason.
@Suite("Label kinds (the check of a decoded label)")
struct LabelKindsTests {
    /// Symbols that put every class of byte in a label: printable, spaces, tab, newline, DEL,
    /// C1 controls written as UTF-8, valid and broken UTF-8, mixed symbols of 8 bytes.
    static let symbolTexts: [[UInt8]] = [
        Array("a".utf8), Array(" ".utf8), Array("   ".utf8), [0x09], [0x0A], [0x7F], Array("é".utf8), [0xC3],
        Array("ab cd".utf8), [0x78, 0x09], Array(" z".utf8), Array("Spam ris".utf8), [0xC2, 0x85], Array("保".utf8),
        [0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20], Array("~!".utf8),
    ]

    static let symbols = LabelSymbols(
        words: symbolTexts.map { $0.enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << UInt64(8 * $1.offset) } },
        lengths: symbolTexts.map { UInt8($0.count) })

    /// What `LabelStoreReader.validate` said of a label before the kinds: the decode, then the rule.
    static func decodedVerdict(_ codes: [UInt8]) -> String {
        var text: [UInt8] = []
        guard codes.withUnsafeBytes({ symbols.decode($0, into: &text) }) else { return "does not decode" }
        return text.withUnsafeBytes { LabelRule.problem($0) }?.rawValue ?? "fine"
    }

    /// The verdict from the decode's kinds, as a read and `validate` give it.
    static func scannedVerdict(_ codes: [UInt8]) -> String {
        codes.withUnsafeBytes { codes -> String in
            guard let problem = symbols.withDecoded(codes, { LabelKinds.problem($0, kinds: $1) }) else { return "does not decode" }
            return problem?.rawValue ?? "fine"
        }
    }

    @Test("random code strings over an adversarial table: the kinds agree with decode + LabelRule")
    func agreesWithDecoding() {
        var rng = SeededGenerator(seed: 39)
        let count = Self.symbolTexts.count
        var verdicts = Set<String>()
        for _ in 0..<50_000 {
            var codes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...60, using: &rng) {
                switch Int.random(in: 0..<20, using: &rng) {
                case 0: codes += [LabelSymbols.escape, UInt8.random(in: 0...255, using: &rng)]  // a literal
                case 1: codes.append(UInt8.random(in: UInt8(count)...254, using: &rng))  // not in the table
                case 2: codes.append(LabelSymbols.escape)  // an escape, maybe without its byte
                default: codes.append(UInt8.random(in: 0..<UInt8(count), using: &rng))
                }
            }
            let expected = Self.decodedVerdict(codes)
            #expect(Self.scannedVerdict(codes) == expected, "\(codes)")
            verdicts.insert(expected)
        }
        // Every outcome was met, too long labels (over 255 bytes) among the undecodable.
        #expect(verdicts == ["fine", "does not decode", "empty-label", "label-control-character", "label-invalid-utf8"], "\(verdicts)")
    }

    @Test("edge labels: empty, only spaces, spaces then text, exactly 255 and 256 bytes, a literal space")
    func edges() {
        let a: UInt8 = 0, space: UInt8 = 1, eightSpaces: UInt8 = 14
        let cases: [[UInt8]] = [[], [space], [space, eightSpaces], [space, a], [LabelSymbols.escape, 0x20], [LabelSymbols.escape, 0x41],
                                Array(repeating: a, count: 255), Array(repeating: a, count: 256), [eightSpaces] + Array(repeating: a, count: 247),
                                [eightSpaces] + Array(repeating: a, count: 248), [LabelSymbols.escape]]
        for codes in cases { #expect(Self.scannedVerdict(codes) == Self.decodedVerdict(codes), "\(codes)") }
        #expect(Self.scannedVerdict([space, eightSpaces]) == "empty-label")
        #expect(Self.scannedVerdict(Array(repeating: a, count: 256)) == "does not decode")
    }
}
