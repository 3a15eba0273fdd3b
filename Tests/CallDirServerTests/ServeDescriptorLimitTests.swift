import CallDir
import Foundation
import Testing
import TestSupport

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

        // What separates a spin from a backoff is not CPU time: on this shared 2-core machine a
        // spinning event loop got 0.47-0.49 s of CPU in the 1.5 s window under a load average of 19
        // (1.5 s on an idle machine), and a fixed CPU bound either fails a pausing daemon on an
        // idle machine's noise (0.15 s was too tight) or passes a spin on a busy one. What a spin
        // cannot hide is being runnable: its event loop is on a CPU or waiting in the run queue
        // for the whole window (the kernel's schedstat: on-CPU plus run-queue time, summed over
        // the daemon's threads), about 1.5 s however loaded the machine is. Backing off, the
        // daemon sleeps in epoll and wakes every 100 ms for one accept. Measured at a load
        // average of 19: a spin (the backoff disabled) 1.51-1.52 s runnable with 0.48-0.49 s of
        // CPU; the backoff 0.02-0.04 s runnable. Half the window separates the two: a thread
        // runnable that long is not pausing.
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        let pid = process.processIdentifier
        let cpuBefore = try cpuTicks(pid)
        let runnableBefore = runnableSeconds(pid)
        usleep(1_500_000)
        let cpu = Double(try cpuTicks(pid) - cpuBefore) / ticksPerSecond
        if let runnableBefore, let runnableAfter = runnableSeconds(pid) {
            let runnable = runnableAfter - runnableBefore
            #expect(runnable < 0.75, "the daemon was runnable \(runnable) s of 1.5 s at its descriptor limit (\(cpu) s on a CPU): it spins on accept instead of pausing")
        } else {
            // A kernel without schedstat: CPU time only, which a spin on an idle machine exceeds.
            #expect(cpu < 0.5, "the daemon used \(cpu) s of CPU in 1.5 s at its descriptor limit: it spins on accept instead of pausing")
        }

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

    /// Seconds the process's threads spent on a CPU or waiting in the run queue (the first two
    /// fields of /proc/PID/task/TID/schedstat, nanoseconds), or nil where the kernel keeps no
    /// schedstat. A thread that exits while being read is left out.
    private func runnableSeconds(_ pid: Int32) -> Double? {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return nil }
        var nanoseconds: UInt64 = 0
        var read = 0
        for task in tasks {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8) else { continue }
            let fields = text.split(separator: " ")
            guard fields.count >= 2, let running = UInt64(fields[0]), let waiting = UInt64(fields[1]) else { return nil }
            nanoseconds += running + waiting
            read += 1
        }
        return read > 0 ? Double(nanoseconds) / 1e9 : nil
    }

    /// utime + stime of a process, in clock ticks (fields 14 and 15 of /proc/PID/stat).
    private func cpuTicks(_ pid: Int32) throws -> Int {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // The command name (field 2) may contain spaces: count fields after its closing ')'.
        let fields = stat[stat.range(of: ")", options: .backwards)!.upperBound...].split(separator: " ")
        return Int(fields[11])! + Int(fields[12])!
    }
}
