import CallDir
import CallDirServer
import Dispatch
import Foundation
import Synchronization
import Testing
import CallDirReader
import TestSupport

/// Clients query without pause while the index file is replaced many times (once by a damaged
/// file, once removed): no request may fail, and every answer must come wholly from one index.
@Suite("Reload under load")
struct ReloadTests {
    static let numbers = (0..<200).map { 14_085_550_000 + Int64($0) * 7 }

    @Test("40 swaps between A and B, one damaged file, one missing file: zero failures, no mixed batches")
    func reloadUnderLoad() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        // A blocks every number; B labels every number. Any batch answered partly by each
        // would mix "block" and "identify".
        let a = try scratch.compile("a.calldir", block: Self.numbers.map(String.init))
        let b = try scratch.compile("b.calldir", identify: Self.numbers.map { "\($0),Index B" })
        let served = scratch.file("served.calldir")
        try scratch.publish(a, as: served)
        let server = try startServer(index: served)
        defer { server.stopAndWait() }
        let expected = [
            try CallDirIndex(path: a).checksumText: "block",
            try CallDirIndex(path: b).checksumText: "identify",
        ]

        let shared = Shared()
        let group = DispatchGroup()
        for clientNumber in 0..<3 {
            DispatchQueue.global().async(group: group) {
                do {
                    let client = try TestHTTPClient(port: server.port)
                    defer { client.close() }
                    var round = 0
                    while !shared.done.load(ordering: .acquiring) {
                        round += 1
                        let problem = try Self.query(client, round: round + clientNumber, expected: expected, shared: shared)
                        if let problem { shared.problems.withLock { $0.append(problem) } }
                        shared.answered.wrappingAdd(1, ordering: .relaxed)
                    }
                } catch {
                    shared.problems.withLock { $0.append("client \(clientNumber): \(error)") }
                }
            }
        }

        /// Waits until the clients have had a few answers from the index now being served.
        func letClientsQuery() {
            let target = shared.answered.load(ordering: .relaxed) + 6
            for _ in 0..<10_000 where shared.answered.load(ordering: .relaxed) < target && shared.problems.withLock({ $0.isEmpty }) {
                usleep(500)
            }
        }
        for swap in 0..<40 {
            try scratch.publish(swap % 2 == 0 ? b : a, as: served)
            server.holder.reloadIfReplaced()
            letClientsQuery()
            if swap == 10 {
                try scratch.publish(a, as: served, damage: true)
                server.holder.reloadIfReplaced()
                letClientsQuery()
            }
            if swap == 20 {
                unlink(served)
                server.holder.reloadIfReplaced()
                letClientsQuery()
            }
        }
        shared.done.store(true, ordering: .releasing)
        group.wait()

        #expect(shared.problems.withLock { $0 } == [])
        #expect(shared.answered.load(ordering: .relaxed) > 120)
        #expect(shared.seen.withLock { $0 } == Set(expected.keys))
        #expect(server.metrics.reloads.count == 41)
        #expect(server.metrics.reloadFailures.count == 2)
        #expect(server.holder.mappedHighWater <= 2)
        let failures = [400, 404, 405, 413, 431, 500, 503].map { status in
            [.lookup, .batch].map { server.metrics.requestCount(route: $0, status: status) }.reduce(0, +)
        }.reduce(0, +)
        #expect(failures == 0)
    }

    /// One batch of 50 numbers (alternating JSON and text) or one single GET; returns a
    /// description of what was wrong with the answer, or nil.
    static func query(_ client: TestHTTPClient, round: Int, expected: [String: String],
                      shared: Shared) throws -> String? {
        let slice = (0..<50).map { numbers[(round * 13 + $0 * 3) % numbers.count] }
        if round % 3 == 0 {
            let answer = try client.get("/v1/lookup/\(slice[0])")
            guard answer.status == 200, let checksum = (answer.json["index"] as? [String: Any])?["checksum"] as? String,
                  let action = expected[checksum] else { return "GET \(answer.status): \(answer.body)" }
            shared.seen.withLock { _ = $0.insert(checksum) }
            return answer.json["action"] as? String == action ? nil : "GET answered \(answer.body) from \(checksum)"
        }
        let body = round % 2 == 0 ? "[" + slice.map { "\"\($0)\"" }.joined(separator: ",") + "]"
                                  : slice.map(String.init).joined(separator: "\n")
        let answer = try client.post("/v1/lookup", body)
        guard answer.status == 200, let checksum = (answer.json["index"] as? [String: Any])?["checksum"] as? String,
              let action = expected[checksum], let results = answer.json["results"] as? [[String: Any]] else {
            return "POST \(answer.status): \(answer.body.prefix(200))"
        }
        shared.seen.withLock { _ = $0.insert(checksum) }
        let actions = Set(results.map { $0["action"] as? String ?? "?" })
        guard results.count == 50, actions == [action] else { return "mixed batch from \(checksum): \(actions)" }
        guard results.map({ $0["e164"] as? Int64 ?? 0 }) == slice else { return "batch answered out of order" }
        return nil
    }
}

/// What the client loops and the swapping loop share.
final class Shared: Sendable {
    let done = Atomic(false)
    let answered = Atomic(0)
    let problems = Mutex<[String]>([])
    let seen = Mutex<Set<String>>([])
}
