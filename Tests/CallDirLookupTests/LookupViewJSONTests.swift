import Testing
@testable import CallDirLookup
import CallDirReader
import TestSupport

/// The answer JSON written from `lookupViews` (labels lent as bytes) equals the JSON of single
/// lookups, on an index with shared and stream labels and ranges, verified or not.
@Suite("Lookup JSON from batch views")
struct LookupViewJSONTests {
    static func json(_ view: LookupResultView) -> [UInt8] {
        var out: [UInt8] = []
        out.appendJSON(maxBytes: JSONWriter.lookupBound(view)) { $0.lookupMembers(view) }
        return out
    }

    @Test("views and single lookups give the same JSON bytes")
    func sameBytes() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let entries = sampleEntries(3_000, seed: 11)
        let blocked = entries.enumerated().filter { $0.offset % 5 == 0 }.map { "\($0.element.0)" } + ["3316200####"]
        let identified = entries.map { "\($0.0),\($0.1) \($0.0 % 7 == 0 ? "own \($0.0)" : "")" } + ["4400000####,Range \"quoted\" \\ ünï"]
        let path = folder.file("i.calldir")
        try buildIndex(block: blocked, identify: identified, output: path)
        let probes: [Int64] = entries.map(\.0).flatMap { [$0 - 1, $0] } + [44_000_001_234, 33_162_001_234]
        for verify in [false, true] {
            let index = try CallDirIndex(path: path, verify: verify)
            var json: [[UInt8]] = []
            try probes.withUnsafeBufferPointer { try index.lookupViews($0) { json.append(Self.json($0)) } }
            let single = try probes.map { try index.lookup($0) }
            #expect(json == single.map { result in result.withView { Self.json($0) } })
            #expect(json.contains { String(decoding: $0, as: UTF8.self).contains(#"Range \"quoted\" \\ ünï"#) })
        }
    }
}
