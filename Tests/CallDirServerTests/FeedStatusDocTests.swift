import CallDirServer
import Foundation
import Testing

/// FEED-PROTOCOL.md, "Status of a following daemon", names every member of the `feed` object
/// /healthz serves and every calldir_feed_* family /metrics serves, with its type.
@Suite("FEED-PROTOCOL.md and the status of a following daemon")
struct FeedStatusDocTests {
    @Test("every /healthz feed member and every metric family (with its type) is in the page's tables")
    func everyFieldNamed() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let page = try String(contentsOf: root.appendingPathComponent("FEED-PROTOCOL.md"), encoding: .utf8)
        let start = try #require(page.range(of: "\n## Status of a following daemon\n"))
        let section = page[start.upperBound...].components(separatedBy: "\n## ")[0]
        let metrics = Metrics()
        let status = metrics.feed
        status.update({ $0.serial = 2; $0.manifestCreated = 1; $0.expires = 2; $0.lastCheck = 1; $0.lastError = "x" },
                      url: "https://lists.example/feed")
        let members = status.healthJSON.matches(of: /"(\w+)":/).map { String($0.output.1) }
        #expect(members.count == 11)
        #expect(members.filter { !section.contains("`\($0)`") } == [])
        // The feed's families as the daemon's registry writes them on /metrics (FeedGauges).
        let metricsPage = metrics.render(holder: IndexHolder(path: "/nonexistent/index.calldir", metrics: metrics, logger: quietLogger))
        let families = metricsPage.matches(of: /# TYPE (calldir_feed_\S+) (\S+)/).map { "`\($0.output.1)` | \($0.output.2) |" }
        #expect(families.count == 10)
        #expect(families.filter { !section.contains($0) } == [])
    }
}
