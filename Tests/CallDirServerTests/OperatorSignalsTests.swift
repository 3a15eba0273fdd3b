import CallDir
import CallDirServer
import Foundation
import Testing
import CallDirReader
import TestSupport

/// Issue 30's operator items: a daemon that cannot serve can say so at start
/// (`--require-index`), and /healthz tells when the file on disk was refused.
@Suite("Operator signals: --require-index and the last reload in /healthz")
struct OperatorSignalsTests {
    @Test("--require-index: a missing, damaged or FIFO index exits 2 at start naming it; a good one is served")
    func requireIndex() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let good = try scratch.compile("good.calldir", block: ["18005555555"])
        let damaged = scratch.file("damaged.calldir")
        try scratch.publish(good, as: damaged, damage: true)
        let fifo = scratch.file("fifo.calldir")
        #expect(mkfifo(fifo, 0o644) == 0)
        for (index, reason) in [(scratch.file("typo.calldir"), "no index file here"), (damaged, "damaged.calldir: --require-index: "),
                                (fifo, "a FIFO, not a regular file")] {
            let daemon = try Daemon(ServeProcessTests.binary, ["serve", "--index", index, "--port", "0", "--require-index"],
                                    log: scratch.file("serve.log"))
            defer { daemon.stop() }
            #expect(daemon.wait() == 2, "\(daemon.text)")
            #expect(daemon.text.contains("--require-index: ") && daemon.text.contains(reason) && daemon.text.contains(index),
                    "\(daemon.text)")
        }
        let daemon = try Daemon(ServeProcessTests.binary, ["serve", "--index", good, "--port", "0", "--require-index"],
                                log: scratch.file("good.log"))
        defer { daemon.stop() }
        let port = try daemon.waitFor(#"address=127\.0\.0\.1:\d+"#, then: "index loaded")
        let client = try TestHTTPClient(port: port)
        defer { client.close() }
        #expect(try client.get("/healthz").status == 200)
        kill(daemon.pid, SIGTERM)
        #expect(daemon.wait() == 0)
    }

    @Test("/healthz shows the last reload: ok at start, then a refused replacement (still 200 on the index served)")
    func lastReloadInHealth() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let a = try scratch.compile("a.calldir", block: ["18005555555"])
        let served = scratch.file("served.calldir")
        try scratch.publish(a, as: served)
        let server = try startServer(index: served)
        defer { server.stopAndWait() }
        let client = try TestHTTPClient(port: server.port)
        defer { client.close() }
        let checksum = try CallDirIndex(path: a).checksumText
        var health = try client.get("/healthz")
        var last = health.json["lastReload"] as? [String: Any] ?? [:]
        #expect(health.status == 200 && last["ok"] as? Bool == true && last["reason"] as? String == "start", "\(health.body)")
        #expect(last["checksum"] as? String == checksum && last["error"] is NSNull && (last["at"] as? Int ?? 0) > 1_700_000_000)

        try scratch.publish(a, as: served, damage: true)
        server.holder.reload(reason: "SIGHUP")
        health = try client.get("/healthz")
        last = health.json["lastReload"] as? [String: Any] ?? [:]
        #expect(health.status == 200, "the old index still serves")
        #expect(last["ok"] as? Bool == false && last["reason"] as? String == "SIGHUP", "\(health.body)")
        #expect((last["error"] as? String)?.contains("served.calldir: ") == true && last["checksum"] as? String == checksum,
                "\(health.body)")

        try scratch.publish(a, as: served)
        server.holder.reload(reason: "SIGHUP")
        last = try client.get("/healthz").json["lastReload"] as? [String: Any] ?? [:]
        #expect(last["ok"] as? Bool == true && last["error"] is NSNull)
    }
}
