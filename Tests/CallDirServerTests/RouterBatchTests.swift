import CallDir
import CallDirLookup
@testable import CallDirServer
import Foundation
import NIOCore
import NIOHTTP1
import Testing
@testable import CallDirReader
import TestSupport

/// `POST /v1/lookup` answers with one batch lookup whose labels are written from their bytes;
/// the body must be byte for byte what answering each input alone gives.
@Suite("Router batch bytes")
struct RouterBatchTests {
    @Test("a batch is the single answers in order, across lookup groups, with non-numbers anywhere")
    func sameBytes() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let numbers = (0..<60).map { 12_015_550_000 + Int64($0) * 13 }
        let labels = ["Spam \"risk\"", "Back\\slash", "Müller & Söhne", "保险推销", "Slash/Ünï"]
        let path = try scratch.compile(
            "batch.calldir",
            block: numbers.enumerated().filter { $0.offset % 4 == 0 }.map { "\($0.element)" } + ["1900555####"],
            identify: numbers.enumerated().filter { $0.offset % 3 != 2 }.map { "\($0.element),\(labels[$0.offset % labels.count]) \($0.offset)" }
                + ["1888555####,Range label"])
        let metrics = Metrics()
        let holder = IndexHolder(path: path, metrics: metrics, logger: quietLogger)
        holder.reload(reason: "test")
        let policy = CallerIDPolicy(withheld: .block, invalid: .allow)
        let normalizer = try NumberNormalizer(country: nil)
        let router = Router(holder: holder, metrics: metrics, limits: ServerLimits(), normalizer: normalizer, policy: policy)
        var inputs = numbers.map { "+\($0)" } + ["19005551234", "18885550000", "14155550000"]
        for (at, odd) in [(0, "anonymous"), (17, "nope"), (18, ""), (33, "1 800 FLOWERS"), (40, "+999 123 4567"), (41, "(469) 257-6503"), (inputs.count + 4, "private")] {
            inputs.insert(odd, at: min(at, inputs.count))
        }
        let body = "[" + inputs.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        let response = router.respond(method: .POST, uri: "/v1/lookup", body: ByteBuffer(string: body), headers: HTTPHeaders())
        #expect(response.status == .ok)

        let loaded = try #require(holder.snapshot)
        var expected = Array("{\"index\":".utf8) + loaded.identity + Array(",\"count\":\(inputs.count),\"results\":[".utf8)
        for (i, input) in inputs.enumerated() {
            if i > 0 { expected.append(UInt8(ascii: ",")) }
            expected.appendJSON(maxBytes: 2_000) { w in
                w.text("{\"input\":")
                w.string(input)
                w.byte(UInt8(ascii: ","))
                switch normalizer.classify(input) {
                case .number(let number): w.lookupMembers(try! loaded.index.lookup(number))
                case .notANumber(let reason):
                    w.notANumberMembers(reason, message: normalizer.explain(input, reason), action: policy.action(for: reason))
                }
                w.byte(UInt8(ascii: "}"))
            }
        }
        expected += Array("]}".utf8)
        #expect(Array(response.body.readableBytesView) == expected)
        let text = String(decoding: expected, as: UTF8.self)
        #expect(text.contains("Spam \\\"risk\\\" 0") && text.contains("Slash/Ünï 4") && text.contains("\"labelMatch\":\"range\""))
        #expect(text.contains("\"reason\":\"anonymous\""))
        #expect(text.contains("no country uses any of the calling codes +9, +99, +999"))
    }
}
