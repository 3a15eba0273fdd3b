import CallDir
import Foundation
import Synchronization
import Testing
import CallDirReader
import TestSupport

/// What an operator may do to the file a running daemon serves, besides publishing by rename:
/// truncate and rewrite it in place (`cp new served`, `rsync --inplace`, `> served`), or put
/// a FIFO at its path. The daemon must stay up, answer or report unready, and stop on SIGTERM.
@Suite("calldir serve: the served file changed under it")
struct ServedFileChangeTests {
    /// Rewrites `path` in place as `cp` does: open with O_TRUNC (same inode), then write.
    func rewriteInPlace(_ path: String, with bytes: [UInt8]?) {
        let fd = open(path, O_WRONLY | O_TRUNC)
        guard fd >= 0 else { return }
        if let bytes { _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } }
        close(fd)
    }

    @Test("the served index truncated and rewritten in place under steady lookups: the daemon never dies, and serves the new file")
    func truncateInPlaceUnderLoad() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        // Enough entries for a file of several pages: a truncated mapping faults on every page.
        let blocked = (0..<20_000).map { String(14_085_550_000 + Int64($0) * 7) }
        let a = try scratch.compile("a.calldir", block: blocked + ["18005555555"])
        let b = try scratch.compile("b.calldir", identify: ["18005555555,B"])
        let bytesA = Array(FileManager.default.contents(atPath: a)!), bytesB = Array(FileManager.default.contents(atPath: b)!)
        let served = scratch.file("served.calldir")
        FileManager.default.createFile(atPath: served, contents: Data(bytesA))
        let daemon = try Daemon(ServeProcessTests.binary, ["serve", "--index", served, "--port", "0", "--poll-interval", "10",
                                                           "--threads", "2"], log: scratch.file("serve.log"))
        defer { daemon.stop() }
        let port = try daemon.waitFor(#"address=127\.0\.0\.1:\d+"#, then: "index loaded")

        // Steady load: one keep-alive client asking as fast as it is answered, on its own thread.
        let stop = Atomic(false)
        let statuses = Mutex<[Int: Int]>([:])
        let failure = Mutex<String?>(nil)
        let load = Thread {
            do {
                let client = try TestHTTPClient(port: port)
                defer { client.close() }
                while !stop.load(ordering: .relaxed) {
                    let status = try client.get("/v1/lookup/18005555555").status
                    statuses.withLock { $0[status, default: 0] += 1 }
                }
            } catch {
                failure.withLock { $0 = "the lookup client failed: \(error)" }
            }
        }
        load.start()
        defer { stop.store(true, ordering: .relaxed) }
        func answered() -> Int { statuses.withLock { $0.values.reduce(0, +) } }
        for round in 0..<6 {
            let before = answered()
            rewriteInPlace(served, with: nil)  // truncated to 0: every page of a shared mapping is gone
            while answered() < before + 200 && daemon.isRunning && failure.withLock({ $0 }) == nil { usleep(1000) }
            rewriteInPlace(served, with: round % 2 == 0 ? bytesB : bytesA)
            let after = answered()
            while answered() < after + 200 && daemon.isRunning && failure.withLock({ $0 }) == nil { usleep(1000) }
        }
        stop.store(true, ordering: .relaxed)
        #expect(daemon.isRunning, "the daemon died (SIGBUS?):\n\(daemon.text)")
        #expect(failure.withLock { $0 } == nil, "\(failure.withLock { $0 } ?? "")\n\(daemon.text)")
        let seen = statuses.withLock { $0 }
        #expect(Set(seen.keys).isSubset(of: [200, 503]), "unexpected statuses \(seen)")
        #expect(seen[200, default: 0] > 0, "\(seen)")

        // The last rewrite (a) is loaded once the watcher sees it complete.
        let client = try TestHTTPClient(port: port)
        defer { client.close() }
        let checksumA = try CallDirIndex(path: a).checksumText
        for _ in 0..<2000 {
            if (try client.get("/healthz").json["index"] as? [String: Any])?["checksum"] as? String == checksumA { break }
            usleep(10_000)
        }
        #expect((try client.get("/healthz").json["index"] as? [String: Any])?["checksum"] as? String == checksumA)
        #expect(try client.get("/v1/lookup/18005555555").json["action"] as? String == "block")
        kill(daemon.pid, SIGTERM)
        #expect(daemon.wait() == 0, "\(daemon.text)")
    }

    @Test("a FIFO at the index path is refused at start and at reload; SIGTERM still stops the daemon")
    func fifoAtIndexPath() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let fifo = scratch.file("served.calldir")
        #expect(mkfifo(fifo, 0o644) == 0)
        let daemon = try Daemon(ServeProcessTests.binary, ["serve", "--index", fifo, "--port", "0", "--poll-interval", "10"],
                                log: scratch.file("serve.log"))
        defer { daemon.stop() }
        let port = try daemon.waitFor(#"address=127\.0\.0\.1:\d+"#, then: "index refused")
        #expect(daemon.text.contains("a FIFO, not a regular file"), "\(daemon.text)")
        let client = try TestHTTPClient(port: port)
        defer { client.close() }
        #expect(try client.get("/healthz").status == 503)
        kill(daemon.pid, SIGHUP)  // a reload of the FIFO must not block the watcher either
        usleep(100_000)
        #expect(try client.get("/healthz").status == 503)
        kill(daemon.pid, SIGTERM)
        for _ in 0..<500 where daemon.isRunning { usleep(10_000) }  // up to 5 s
        #expect(!daemon.isRunning, "SIGTERM was not acted on:\n\(daemon.text)")
        #expect(daemon.wait() == 0, "\(daemon.text)")
    }
}
