import Foundation
import Testing
import TestSupport

/// `calldir serve --follow`: a daemon started with no index follows a feed served by nginx
/// across publications while clients keep looking numbers up (issue 25).
@Suite("serve --follow", .serialized, .tags(.endToEnd), .skippedInFastLoop)
struct FeedFollowTests {
    /// GET `path` on 127.0.0.1:`port`; the status code, or nil when the exchange failed.
    static func get(_ port: Int, _ path: String) -> (Int, String)? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return nil }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n".utf8)
        guard write(fd, request, request.count) == request.count else { return nil }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            response += buffer[0..<n]
        }
        let text = String(decoding: response, as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 "), let code = Int(text.dropFirst(9).prefix(3)) else { return nil }
        return (code, text)
    }

    final class Load: @unchecked Sendable {
        let lock = NSLock()
        var ok = 0, failed = 0, running = true
        var failures: [String] = []
    }

    @Test("a daemon with no index fetches one, then follows 10 publications under lookup load: 0 failed lookups, each adopted within two poll intervals",
          .enabled(if: ChildServer.nginxPath != nil, "nginx is not installed (scripts/setup --tests installs it)"))
    func followUnderLoad() throws {
        let s = try FeedServerTests.Setup()
        defer { s.scratch.remove() }
        guard let nginx = try ChildServer.nginx(root: s.feed, scratch: s.scratch) else { return }
        defer { nginx.stop() }
        let interval = 200
        let port = ChildServer.freePort()
        let index = s.scratch.file("follower/served.calldir")
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: FeedBin.path("calldir-serve"))
        // --poll-interval 0: the file watcher is off, so each swap is the follower's own reload.
        daemon.arguments = ["--index", index, "--port", String(port), "--poll-interval", "0", "--follow", nginx.url,
                            "--trusted-key", s.publicKey, "--follow-interval", String(interval), "--log-level", "warning"]
        daemon.standardOutput = FileHandle.nullDevice
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        let server = ChildServer(process: daemon, port: port)
        defer { server.stop() }
        try #require(ChildServer.waitUntilListening(port), "the daemon did not start")
        // It fetched v1 before listening; it answers 503 not-ready while it loads and verifies
        // that file, then ready at serial 1 (never another serial, never without the feed).
        var first = try #require(Self.get(port, "/healthz"))
        let listening = Date()
        while first.0 == 503, first.1.contains("not-ready"), Date().timeIntervalSince(listening) < 30 {
            usleep(20_000)
            first = try #require(Self.get(port, "/healthz"))
        }
        #expect(first.0 == 200 && first.1.contains("\"feed\":{\"url\":\"\(nginx.url)\",\"serial\":1,"), "\(first.1)")

        let load = Load()
        let numbers = s.v1.prefix(200).map { "/v1/lookup/1\($0)" }
        let loader = Thread {
            var i = 0
            while load.lock.withLock({ load.running }) {
                let answer = Self.get(port, numbers[i % numbers.count])
                load.lock.withLock {
                    if answer?.0 == 200 { load.ok += 1 } else { load.failed += 1; load.failures.append(answer?.1 ?? "no answer") }
                }
                i += 1
            }
        }
        loader.start()
        var numbersNow = s.v1
        var adoption: [Int] = []
        for version in 2...11 {
            numbersNow = FeedBin.churned(numbersNow, fraction: 0.01, seed: UInt64(100 + version))
            try FeedBin.compile(numbersNow, in: s.scratch, name: "v\(version).calldir")
            try s.publish("v\(version).calldir", ["--keep", "2"])
            let published = Date()
            while true {
                if let health = Self.get(port, "/healthz"), health.1.contains("\"serial\":\(version),") { break }
                if Date().timeIntervalSince(published) > 10 { break }
                usleep(10_000)
            }
            adoption.append(Int(Date().timeIntervalSince(published) * 1000))
        }
        load.lock.withLock { load.running = false }
        while !loader.isFinished { usleep(10_000) }
        print("serve --follow: adoption after each publication (ms, poll interval \(interval) ms): \(adoption); lookups ok \(load.ok), failed \(load.failed)")
        #expect(load.failed == 0, "\(load.failures.prefix(3))")
        #expect(load.ok > 100)
        // Every publication is adopted. The printed figures are the measurement (about one poll
        // interval); the bound is two intervals plus slack for a debug build on a busy CI machine,
        // so it catches a follower that stops polling, not a slow second.
        #expect(adoption.allSatisfy { $0 <= 2 * interval * 11 / 10 + 2_000 }, "\(adoption)")
        #expect(FeedBin.bytes(index) == FeedBin.bytes(s.scratch.file("v11.calldir")))
        let metrics = try #require(Self.get(port, "/metrics"))
        #expect(metrics.1.contains("calldir_feed_serial 11"))
        // The first fetch (no index at start) and the 10 publications.
        #expect(metrics.1.contains("calldir_feed_updates_total 11"), "\(metrics.1.split(separator: "\n").filter { $0.hasPrefix("calldir_feed") })")
    }
}
