import CallDir
import Foundation
import Testing

/// The real daemon under a low descriptor limit (`ulimit -n 64`) with more clients than it can
/// hold: accept(2) fails with EMFILE while connections wait in the backlog. It must pause
/// accepting (not spin on a core) and serve again once clients leave.
@Suite("calldir serve at its descriptor limit")
struct ServeDescriptorLimitTests {
    @Test("EMFILE on accept backs off instead of spinning, and /healthz answers once clients leave")
    func acceptBackoff() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = try scratch.compile("i.calldir", block: ["18005555555"])
        let log = scratch.file("serve.log")
        let process = try startServe(index: index, descriptorLimit: 64, threads: 1, log: log)
        defer { if process.isRunning { process.terminate(); process.waitUntilExit() } }
        func logText() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
        func waitFor(_ condition: () -> Bool) { for _ in 0..<1000 where !condition() { usleep(10_000) } }

        waitFor { logText().contains("index loaded") || !process.isRunning }
        guard let match = logText().range(of: #"address=127\.0\.0\.1:(\d+)"#, options: .regularExpression),
              let port = Int(logText()[match].split(separator: ":").last!) else {
            Issue.record("the daemon did not start: \(logText())")
            return
        }
        // 100 idle clients: the kernel completes every handshake (backlog 1024), the daemon
        // runs out of descriptors part-way through accepting them.
        var clients = try (0..<100).map { _ in try RawConnection(port: port) }
        waitFor { logText().contains("cannot accept connections") }
        #expect(logText().contains("reason=Too many open files"), "the limit was not reached: \(logText())")

        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        let before = try cpuTicks(process.processIdentifier)
        usleep(1_500_000)
        let seconds = Double(try cpuTicks(process.processIdentifier) - before) / ticksPerSecond
        // A spinning accept loop burns up to 1.5 s of CPU here; backing off, about 0.01 s.
        #expect(seconds < 0.15, "the daemon used \(seconds) s of CPU in 1.5 s at its descriptor limit")

        for client in clients { client.close() }
        clients.removeAll()
        var answer = ""
        waitFor {
            guard let health = try? RawConnection(port: port) else { return false }
            defer { health.close() }
            health.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            answer = health.readUntilClosed()
            return answer.hasPrefix("HTTP/1.1 200")
        }
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    /// utime + stime of a process, in clock ticks (fields 14 and 15 of /proc/PID/stat).
    private func cpuTicks(_ pid: Int32) throws -> Int {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // The command name (field 2) may contain spaces: count fields after its closing ')'.
        let fields = stat[stat.range(of: ")", options: .backwards)!.upperBound...].split(separator: " ")
        return Int(fields[11])! + Int(fields[12])!
    }
}
