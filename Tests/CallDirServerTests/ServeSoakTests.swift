import CallDir
import Foundation
import Synchronization
import Testing
import TestSupport

/// The real daemon under abuse on 127.0.0.1, in bounded time: 1,000 idle connections, clients
/// that send half a header and stall, a burst of malformed requests, and a storm of 100 SIGHUP
/// reloads in about a second while a client keeps sending valid lookups. No valid request may
/// fail, and resident memory must come back near where it started. Figures: docs/BENCHMARKS.md#serve-soak.
@Suite("calldir serve under abuse")
struct ServeSoakTests {
    /// Resident memory of a process in KiB (VmRSS in /proc/PID/status).
    static func residentKiB(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return try #require(Int(line.split(separator: " ")[1]))
    }

    @Test("1,000 idle connections, slow headers, malformed requests and 100 SIGHUPs in a second: no valid lookup fails")
    func soak() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        var rng = SystemRandomNumberGenerator()
        let numbers = (0..<50_000).map { _ in  // valid NANP: area code and exchange 200-999
            10_000_000_000 + Int64.random(in: 200...999, using: &rng) * 10_000_000
                + Int64.random(in: 200...999, using: &rng) * 10_000 + Int64.random(in: 0...9_999, using: &rng)
        }
        let index = try scratch.compile("soak.calldir", block: Set(numbers + [18_005_555_555]).sorted().map(String.init))
        let log = scratch.file("serve.log")
        let process = try startServe(index: index, descriptorLimit: 4096, threads: 2, log: log)
        defer { if process.isRunning { process.terminate(); process.waitUntilExit() } }
        func logText() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
        for _ in 0..<2000 where !(logText().contains("index loaded") || !process.isRunning) { usleep(10_000) }
        guard let match = logText().range(of: #"address=127\.0\.0\.1:(\d+)"#, options: .regularExpression),
              let port = Int(logText()[match].split(separator: ":").last!) else {
            Issue.record("the daemon did not start: \(logText())")
            return
        }
        let pid = process.processIdentifier
        let client = try TestHTTPClient(port: port)
        defer { client.close() }
        var valid = 0
        var failed: [String] = []
        func lookup() {
            valid += 1
            do {
                let answer = try client.get("/v1/lookup/18005555555")
                if answer.status != 200 { failed.append("status \(answer.status): \(answer.body)") }
            } catch { failed.append("\(error)") }
        }
        for _ in 0..<200 { lookup() }  // warm up before measuring
        let rssBefore = try Self.residentKiB(pid)

        let idle = try (0..<1_000).map { _ in try RawConnection(port: port) }
        defer { for connection in idle { connection.close() } }
        let slow = try (0..<20).map { _ in try RawConnection(port: port) }
        defer { for connection in slow { connection.close() } }
        for connection in slow { connection.send("GET /v1/lookup/18005555555 HTTP/1.1\r\nHo") }
        lookup()

        let malformed = ["BLAH\r\n\r\n", "GET / HTTP/9.9\r\n\r\n", "\u{0}\u{1}\u{2}garbage\r\n\r\n",
                         "GET /v1/lookup/" + String(repeating: "9", count: 20_000) + " HTTP/1.1\r\n\r\n",
                         "POST /v1/lookup HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
                         "GET /v1/lookup/18005555555 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"]
        var malformedSent = 0
        for round in 0..<50 {
            let connection = try RawConnection(port: port)
            connection.send(malformed[round % malformed.count])
            _ = connection.readSome()
            connection.close()
            malformedSent += 1
            if round % 5 == 0 { lookup() }
        }

        // The storm: 100 SIGHUPs, 10 ms apart, while this thread keeps looking up.
        let stormDone = Atomic<Bool>(false)
        let storm = Thread {
            for _ in 0..<100 {
                kill(pid, SIGHUP)
                usleep(10_000)
            }
            stormDone.store(true, ordering: .releasing)
        }
        let stormStart = Date()
        storm.start()
        var duringStorm = 0
        while !stormDone.load(ordering: .acquiring) {
            lookup()
            duringStorm += 1
        }
        let stormSeconds = Date().timeIntervalSince(stormStart)
        // POSIX does not queue a signal that is already pending: on a loaded machine two of the
        // storm's SIGHUPs may arrive as one. So: the count settles between 2 and 101, and one
        // more SIGHUP, alone, reloads exactly once more.
        func reloadCount() throws -> Int {
            try client.get("/metrics").body.split(separator: "\n").first { $0.hasPrefix("calldir_index_reloads_total ") }
                .flatMap { Int($0.split(separator: " ").last ?? "") } ?? -1
        }
        var settled = try reloadCount(), stable = 0
        for _ in 0..<2000 where settled < 101 && stable < 50 {
            usleep(10_000)
            let now = try reloadCount()
            stable = now == settled ? stable + 1 : 0
            settled = now
        }
        kill(pid, SIGHUP)
        for _ in 0..<500 where try reloadCount() == settled { usleep(10_000) }
        let afterOne = try reloadCount()
        let reloads = "calldir_index_reloads_total \(afterOne)"
        for _ in 0..<200 { lookup() }
        let rssAfter = try Self.residentKiB(pid)

        #expect(process.isRunning, "the daemon died: \(logText())")
        #expect(failed.isEmpty, "\(failed.count) of \(valid) valid lookups failed: \(failed.prefix(5))")
        #expect(duringStorm > 0)
        #expect((2...101).contains(settled) && afterOne == settled + 1, "storm settled at \(settled) reloads, then \(afterOne)")
        // Bound: 1,000 connections' buffers and 100 index generations must not stay resident.
        #expect(rssAfter < rssBefore + 32 * 1024, "RSS grew from \(rssBefore) KiB to \(rssAfter) KiB")
        print("soak: RSS before \(rssBefore) KiB, after \(rssAfter) KiB; \(valid) valid lookups (\(duringStorm) during "
              + "\(String(format: "%.2f", stormSeconds)) s of 100 SIGHUPs), \(idle.count) idle, \(slow.count) slow, "
              + "\(malformedSent) malformed; \(reloads)")
    }
}
