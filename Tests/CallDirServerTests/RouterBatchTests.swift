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
/// the body must be byte for byte what answering each input alone gives: the answers
/// `calldir lookup --json` prints (one writer, `JSONWriter.answer`, for every front).
@Suite("Router batch bytes")
struct RouterBatchTests {
    static let numbers = (0..<60).map { 12_015_550_000 + Int64($0) * 13 }

    /// The daemon's router over an index of `numbers` (blocked, labelled with text that needs
    /// escaping, both) and ranges; withheld numbers are blocked.
    struct Served {
        let path: String
        let holder: IndexHolder
        let router: Router
        let normalizer: NumberNormalizer
        let policy = CallerIDPolicy(withheld: .block, invalid: .allow)

        init(in scratch: TempFolder) throws {
            let numbers = RouterBatchTests.numbers
            let labels = ["Spam \"risk\"", "Back\\slash", "Müller & Söhne", "保险推销", "Slash/Ünï"]
            path = try scratch.compile(
                "batch.calldir",
                block: numbers.enumerated().filter { $0.offset % 4 == 0 }.map { "\($0.element)" } + ["1900555####"],
                identify: numbers.enumerated().filter { $0.offset % 3 != 2 }.map { "\($0.element),\(labels[$0.offset % labels.count]) \($0.offset)" }
                    + ["1888555####,Range label"])
            let metrics = Metrics()
            holder = IndexHolder(path: path, metrics: metrics, logger: quietLogger)
            holder.reload(reason: "test")
            normalizer = try NumberNormalizer(country: nil)
            router = Router(holder: holder, metrics: metrics, limits: ServerLimits(), normalizer: normalizer, policy: policy)
        }

        /// What `calldir lookup --json` prints for each input (its `Lookup`), without the newline.
        func cliAnswers(_ inputs: [String]) throws -> [[UInt8]] {
            let lookup = Lookup(index: try CallDirIndex(path: path), normalizer: normalizer, policy: policy, json: true)
            return inputs.map { input in
                lookup.answer(input)
                defer { lookup.out = StdoutBuffer() }
                return Array(lookup.out.bytes.dropLast())
            }
        }
    }

    @Test("a batch is the single answers in order, across lookup groups, with non-numbers anywhere: the CLI's answers")
    func sameBytes() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let served = try Served(in: scratch)
        var inputs = Self.numbers.map { "+\($0)" } + ["19005551234", "18885550000", "14155550000"]
        for (at, odd) in [(0, "anonymous"), (17, "nope"), (18, ""), (33, "1 800 FLOWERS"), (40, "+999 123 4567"), (41, "(469) 257-6503"), (inputs.count + 4, "private")] {
            inputs.insert(odd, at: min(at, inputs.count))
        }
        let body = "[" + inputs.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        let response = served.router.respond(method: .POST, uri: "/v1/lookup", body: ByteBuffer(string: body), headers: HTTPHeaders())
        #expect(response.status == .ok)

        let loaded = try #require(served.holder.snapshot)
        var expected = Array("{\"index\":".utf8) + loaded.identity + Array(",\"count\":\(inputs.count),\"results\":[".utf8)
        for (i, line) in try served.cliAnswers(inputs).enumerated() {
            if i > 0 { expected.append(UInt8(ascii: ",")) }
            expected += line
        }
        expected += Array("]}".utf8)
        #expect(Array(response.body.readableBytesView) == expected)
        let text = String(decoding: expected, as: UTF8.self)
        #expect(text.contains("Spam \\\"risk\\\" 0") && text.contains("Slash/Ünï 4") && text.contains("\"labelMatch\":\"range\""))
        #expect(text.contains("\"reason\":\"anonymous\""))
        #expect(text.contains("no country uses any of the calling codes +9, +99, +999"))
    }

    @Test("a single GET answers the CLI's line with the index that answered, for numbers and non-numbers alike")
    func singleIsCLILine() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let served = try Served(in: scratch)
        let inputs = ["+\(Self.numbers[0])", "+\(Self.numbers[1])", "+1 (\(Self.numbers[2] / 10_000_000 % 1000)) 555-0026", "+19005551234",
                      "18885550000", "14155550000", "anonymous", "+999 123 4567"]
        let identity = try #require(served.holder.snapshot).identity
        for (input, line) in zip(inputs, try served.cliAnswers(inputs)) {
            let encoded = input.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "+")))!
            let response = served.router.respond(method: .GET, uri: "/v1/lookup/" + encoded, body: nil, headers: HTTPHeaders())
            #expect(response.status == .ok)
            #expect(Array(response.body.readableBytesView) == line.dropLast() + Array(",\"index\":".utf8) + identity + [UInt8(ascii: "}")],
                    "\(input)")
        }
    }
}
