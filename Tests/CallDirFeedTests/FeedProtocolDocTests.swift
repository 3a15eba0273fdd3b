import CallDirFeed
import CallDirReader
import Foundation
import Testing

/// FEED-PROTOCOL.md names every member the code writes: each member of a rendered manifest,
/// rotation statement and state file (nested ones included) must appear as `member` in the
/// page's section for that file, so a member added in code and not in the spec fails here.
@Suite("FEED-PROTOCOL.md and the feed's files")
struct FeedProtocolDocTests {
    static let page: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return (try? String(contentsOf: root.appendingPathComponent("FEED-PROTOCOL.md"), encoding: .utf8)) ?? ""
    }()

    /// The text under `## heading` up to the next `## `.
    static func section(_ heading: String) -> String {
        guard let start = page.range(of: "\n## " + heading + "\n") else { return "" }
        return String(page[start.upperBound...].components(separatedBy: "\n## ")[0])
    }

    /// Every object member name in `json`, at any depth.
    static func members(_ json: JSONValue) -> Set<String> {
        switch json {
        case .object(let pairs): return pairs.reduce(into: Set(pairs.map(\.0))) { $0.formUnion(members($1.1)) }
        case .array(let items): return items.reduce(into: []) { $0.formUnion(members($1)) }
        default: return []
        }
    }

    static func missing(from heading: String, _ bytes: [UInt8]) throws -> [String] {
        let text = section(heading)
        return try members(FeedJSON.parse(bytes, name: heading)).filter { !text.contains("`\($0)`") }.sorted()
    }

    @Test("every member of a manifest (with a rotation version), a rotation statement and a state file is named")
    func everyMemberNamed() throws {
        let key = FeedPrivateKey().publicKey
        var manifest = FeedFormatTests.manifest()
        manifest.root = 2
        var state = FeedState(feed: "feed-a", expires: 2_000_000_000, serial: 3, sha256: FeedFormatTests.c, keyId: key.keyId,
                              manifestCreated: 1_764_158_400, installed: 1_764_158_500)
        state.root = FeedRoot(version: 2, keys: [key], serial: 3)
        #expect(!Self.page.isEmpty, "FEED-PROTOCOL.md is missing")
        #expect(try Self.missing(from: "manifest.json", manifest.rendered()) == [])
        #expect(try Self.missing(from: "Key rotation: root/<version>.json", FeedRoot(version: 2, keys: [key], serial: 3)
            .rendered(feed: "feed-a")) == [])
        #expect(try Self.missing(from: "State file: <index>.feed-state", state.rendered()) == [])
    }
}
