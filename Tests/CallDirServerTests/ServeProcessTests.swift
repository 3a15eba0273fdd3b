import CallDir
import Foundation
import Testing
import CallDirReader
import TestSupport

/// `calldir serve` as an operator runs it: the built binary, real signals, the file watcher.
@Suite("calldir serve as a process")
struct ServeProcessTests {
    static var binary: String {
        if let explicit = ProcessInfo.processInfo.environment["CALLDIR_BIN"] { return explicit }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/calldir").path
    }

    /// Polls `condition` (every 10 ms, up to 20 s); the caller asserts on the final state.
    func eventually(_ condition: () throws -> Bool) rethrows {
        for _ in 0..<2000 where try !condition() { usleep(10_000) }
    }

    @Test("start on port 0, pick up a renamed file, refuse a damaged one, reload on SIGHUP, exit 0 on SIGTERM")
    func lifecycle() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let a = try scratch.compile("a.calldir", block: ["18005555555"])
        let b = try scratch.compile("b.calldir", identify: ["18005555555,B"])
        let served = scratch.file("served.calldir")
        try scratch.publish(a, as: served)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["serve", "--index", served, "--port", "0", "--poll-interval", "50"]
        let log = scratch.file("serve.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        func logText() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

        var port = 0
        eventually {
            guard let range = logText().range(of: #"address=127\.0\.0\.1:(\d+)"#, options: .regularExpression) else { return false }
            port = Int(logText()[range].split(separator: ":").last!) ?? 0
            return logText().contains("index loaded")
        }
        #expect(port > 0, "\(logText())")
        let client = try TestHTTPClient(port: port)
        defer { client.close() }
        let checksumA = try CallDirIndex(path: a).checksumText
        let checksumB = try CallDirIndex(path: b).checksumText
        func servedChecksum() throws -> String? {
            (try client.get("/healthz").json["index"] as? [String: Any])?["checksum"] as? String
        }
        #expect(try servedChecksum() == checksumA)

        try scratch.publish(b, as: served)  // what `calldir compile -o served.calldir` does
        try eventually { try servedChecksum() == checksumB }
        #expect(try client.get("/v1/lookup/18005555555").json["label"] as? String == "B")

        try scratch.publish(a, as: served, damage: true)
        try eventually { try client.get("/metrics").body.contains("calldir_index_reload_failures_total 1") }
        #expect(try servedChecksum() == checksumB)
        #expect(logText().contains("index refused, still serving \(checksumB)"))

        try scratch.publish(a, as: served)
        kill(process.processIdentifier, SIGHUP)
        try eventually { try servedChecksum() == checksumA }
        #expect(try client.get("/v1/lookup/18005555555").json["action"] as? String == "block")

        process.terminate()  // SIGTERM
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
        #expect(logText().contains("stopped"))
    }

    @Test("a SIGTERM sent the moment /healthz first answers 200 stops the daemon (signals are trapped before it is ready)")
    func sigtermAtReady() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = try scratch.compile("a.calldir", block: ["18005555555"])
        for attempt in 0..<8 {
            // Spawned with an empty signal mask, as systemd starts it (see `Daemon`).
            let daemon = try Daemon(Self.binary, ["serve", "--index", index, "--port", "0", "--poll-interval", "0", "--threads", "1"],
                                    log: scratch.file("serve-\(attempt).log"))
            defer { daemon.stop() }
            let port = try daemon.waitFor(#"address=127\.0\.0\.1:\d+"#)
            var ready = false
            for _ in 0..<20_000 where !ready {  // as fast as the loopback answers
                guard let connection = try? RawConnection(port: port) else { continue }
                connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                ready = connection.readSome().hasPrefix("HTTP/1.1 200")
                connection.close()
            }
            #expect(ready, "\(daemon.text)")
            kill(daemon.pid, SIGTERM)
            for _ in 0..<500 where daemon.isRunning { usleep(10_000) }  // up to 5 s
            let exited = !daemon.isRunning  // if not, `stop()` sends another SIGTERM, then SIGKILL
            #expect(exited, "attempt \(attempt): SIGTERM at ready was not acted on\n\(daemon.text)")
            if exited { #expect(daemon.wait() == 0, "\(daemon.text)") }
        }
    }

    @Test("without --index, calldir serve execs the daemon on the default index ($CALLDIR_INDEX)")
    func defaultIndex() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = try scratch.compile("default.calldir", block: ["18005555555"])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["serve", "--port", "0", "--poll-interval", "0"]
        process.environment = ProcessInfo.processInfo.environment.merging(["CALLDIR_INDEX": index]) { $1 }
        let log = scratch.file("serve.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        func logText() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
        eventually { logText().contains("index loaded") || logText().contains("error") }
        #expect(logText().contains("path=\(index)"), "\(logText())")
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    @Test("the help names the routes and options")
    func help() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["serve", "--help"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        for needle in ["GET /v1/lookup/{number}", "--index", "--host", "--port", "--poll-interval", "--log-requests"] {
            #expect(text.contains(needle), "missing \(needle)")
        }
        #expect(!text.contains("--constant-response"))
    }
}
