import Foundation
import Testing

/// The real telephony path: sipp places calls through Kamailio, which runs the documented
/// configuration (docs/kamailio/calldir.cfg, as it is in the repository) and asks
/// `calldir serve` about every INVITE's caller. Skipped, with the reason, when Kamailio, its
/// http_client module or sipp is not installed (`scripts/setup` installs them as root).
@Suite("Kamailio and sipp against calldir serve")
struct KamailioSIPTests {
    static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/kamailio").path

    @Test("blocked callers get 603, identified ones reach the callee with their label, the rest ring; fail open",
          .enabled(if: SIPTools.missing == nil, "\(SIPTools.missing ?? "")"), .timeLimit(.minutes(1)))
    func calls() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = try scratch.compile("sip.calldir", block: ["18005555555"], identify: ["18775555555,Telemarketer"])
        let serve = try Daemon(ServeProcessTests.binary, ["serve", "--index", index, "--port", "0", "--anonymous", "block"],
                               log: scratch.file("serve.log"))
        defer { serve.stop() }
        let httpPort = try serve.waitFor(#"address=127\.0\.0\.1:(\d+)"#, then: "index loaded")
        let (sipPort, calleePort, callerPort) = (freeUDPPort(), freeUDPPort(), freeUDPPort())
        let callee = try Daemon(SIPTools.sipp, ["-sf", Self.docs + "/callee.xml", "-i", "127.0.0.1", "-p", "\(calleePort)",
                                                "-nostdin", "-trace_msg", "-message_file", scratch.file("callee.log")],
                                log: scratch.file("callee.out"))
        defer { callee.stop() }
        let kamailio = try Daemon(SIPTools.kamailio, [
            "-f", Self.docs + "/calldir.cfg", "-DD", "-E", "-m", "64", "-Y", scratch.path,
            "-l", "udp:127.0.0.1:\(sipPort)",
            "-A", "CALLDIR=\"calldir=>http://127.0.0.1:\(httpPort)/v1/lookup\"",
            "-A", "NEXT_HOP=\"sip:127.0.0.1:\(calleePort)\"",
        ], log: scratch.file("kamailio.log"))
        defer { kamailio.stop() }
        _ = try kamailio.waitFor("Listening on")

        /// One call with sipp's scenario for the answer it must get; the error log when it fails.
        func call(_ caller: String, _ expected: String) throws {
            let errors = scratch.file("errors-\(caller).log")
            let sipp = try Daemon(SIPTools.sipp, [
                "127.0.0.1:\(sipPort)", "-sf", Self.docs + "/call-\(expected).xml", "-key", "caller", caller,
                "-s", "reception", "-i", "127.0.0.1", "-p", "\(callerPort)", "-m", "1", "-nostdin",
                "-timeout", "10s", "-recv_timeout", "3000", "-trace_err", "-error_file", errors,
            ], log: scratch.file("caller.out"))
            let status = sipp.wait()
            let why = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            #expect(status == 0, "\(caller) should be \(expected): \(why)\n\(kamailio.text)")
        }
        try call("18005555555", "declined")       // blocked
        try call("18775555555", "answered")       // identified: passed on with its label
        try call("12125550000", "answered")       // unknown
        try call("911", "answered")               // not a possible number: --invalid allow (default)
        try call("anonymous", "declined")         // withheld: --anonymous block

        let invites = callee.invites(in: scratch.file("callee.log"))
        #expect(invites.map(\.caller) == ["18775555555", "12125550000", "911"])
        #expect(invites.map(\.label) == ["Telemarketer", nil, nil])

        // Fail open: a hung daemon costs the call Kamailio's 1 s timeout; a stopped one, nothing.
        kill(serve.pid, SIGSTOP)
        try call("18005555555", "answered")
        kill(serve.pid, SIGCONT)
        serve.stop()
        try call("18005555555", "answered")
        #expect(kamailio.text.contains("calldir lookup failed (28)"), "a timeout: \(kamailio.text)")
        #expect(kamailio.text.contains("calldir lookup failed (7)"), "connection refused: \(kamailio.text)")
    }
}

/// Where the tools are, or why the test cannot run.
enum SIPTools {
    static let kamailio = "/usr/sbin/kamailio"
    static let sipp = "/usr/bin/sipp"
    static let httpClientModule = "/usr/lib/x86_64-linux-gnu/kamailio/modules/http_client.so"

    static let missing: String? = {
        let needs = [(kamailio, "kamailio"), (httpClientModule, "kamailio-utils-modules"), (sipp, "sip-tester")]
        let absent = needs.filter { !FileManager.default.isExecutableFile(atPath: $0.0) && !FileManager.default.fileExists(atPath: $0.0) }
        guard !absent.isEmpty else { return nil }
        return "needs Debian's \(absent.map(\.1).joined(separator: ", ")) (scripts/setup installs them when run as root)"
    }()
}

/// A process started for the test, its stdout and stderr in a file. Spawned with an empty
/// signal mask (Foundation's `Process` passes on the test runner's, in which SIGTERM is
/// blocked, so Kamailio would ignore it) in a process group of its own, so `stop()` ends it
/// and every child it forked.
final class Daemon {
    let pid: pid_t
    let log: String
    private var status: Int32?

    init(_ executable: String, _ arguments: [String], log: String) throws {
        self.log = log
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let failed = posix_spawn(&child, executable, &actions, &attributes, argv, environ)
        guard failed == 0 else { throw DaemonFailed(log: "cannot start \(executable): \(String(cString: strerror(failed)))") }
        pid = child
    }

    var text: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    /// Waits (up to 20 s) until the log matches `pattern` and contains `then`; the pattern's
    /// first number (a port), or 0.
    @discardableResult
    func waitFor(_ pattern: String, then: String? = nil) throws -> Int {
        for _ in 0..<2000 {
            let text = self.text
            if let range = text.range(of: pattern, options: .regularExpression), then.map(text.contains) ?? true {
                return Int(text[range].split(separator: ":").last ?? "") ?? 0
            }
            if !isRunning { break }
            usleep(10_000)
        }
        throw DaemonFailed(log: text)
    }

    var isRunning: Bool {
        guard status == nil else { return false }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return true }
        status = raw & 0x7f == 0 ? (raw >> 8) & 0xff : -1
        return false
    }

    /// The exit status (-1 when it was killed by a signal).
    func wait() -> Int32 {
        if let status { return status }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        let code = raw & 0x7f == 0 ? (raw >> 8) & 0xff : -1
        status = code
        return code
    }

    /// SIGTERM to the process group; SIGKILL after 5 s if it is still there.
    func stop() {
        guard status == nil else { return }
        kill(-pid, SIGTERM)
        for _ in 0..<500 {
            var raw: Int32 = 0
            if waitpid(pid, &raw, WNOHANG) == pid { status = -1; break }
            usleep(10_000)
        }
        if status == nil { kill(-pid, SIGKILL); _ = wait() }
        kill(-pid, SIGKILL)  // children that outlived their parent
    }

    /// The INVITEs a sipp callee received (its -message_file): caller and X-Caller-Label.
    func invites(in messageLog: String) -> [(caller: String, label: String?)] {
        let text = (try? String(contentsOfFile: messageLog, encoding: .utf8)) ?? ""
        return text.components(separatedBy: "message received").compactMap { message in
            let lines = message.split(whereSeparator: \.isNewline).map(String.init)
            guard lines.contains(where: { $0.hasPrefix("INVITE ") }),
                  let from = lines.first(where: { $0.hasPrefix("From:") }),
                  let user = from.range(of: #"sip:([^@]*)@"#, options: .regularExpression) else { return nil }
            let caller = String(from[user].dropFirst(4).dropLast())
            let label = lines.first { $0.hasPrefix("X-Caller-Label: ") }.map { String($0.dropFirst(16)) }
            return (caller, label)
        }
    }
}

struct DaemonFailed: Error, CustomStringConvertible {
    var log: String
    var description: String { "the process did not become ready:\n\(log)" }
}

/// A UDP port nothing is bound to right now (bind to port 0, read it back, close).
func freeUDPPort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
    }
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}
