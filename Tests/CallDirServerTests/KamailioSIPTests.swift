import Foundation
import Testing
import TestSupport

/// The real telephony path: sipp places calls through Kamailio, which runs the documented
/// configuration (docs/kamailio/calldir.cfg, as it is in the repository) and asks
/// `calldir serve`, started with the command docs/SERVE.md documents for it, about every
/// INVITE's caller. Skipped, with the reason, when Kamailio, its http_client module or sipp is
/// not installed (`scripts/setup` installs them as root).
@Suite("Kamailio and sipp against calldir serve", .tags(.endToEnd), .skippedInFastLoop)
struct KamailioSIPTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let docs = root + "/docs/kamailio"

    /// The daemon's arguments as docs/SERVE.md gives them for Kamailio (the one line marked
    /// `# the daemon of docs/kamailio/calldir.cfg`), with its --index and --port replaced, so
    /// the documented command is the tested one.
    static func documentedServeArguments(index: String) throws -> [String] {
        let serveDoc = try String(contentsOfFile: root + "/docs/SERVE.md", encoding: .utf8)
        let line = try #require(serveDoc.split(separator: "\n").first { $0.contains("# the daemon of docs/kamailio/calldir.cfg") },
                                "docs/SERVE.md has no line marked as the cfg's daemon")
        var words = line.prefix { $0 != "#" }.split(separator: " ").map(String.init)
        try #require(words.prefix(2) == ["calldir", "serve"], "not a calldir serve command: \(line)")
        words.removeFirst()
        for (option, value) in [("--index", index), ("--port", "0")] {
            let at = try #require(words.firstIndex(of: option), "the documented command has no \(option)")
            words[at + 1] = value
        }
        return words
    }

    @Test("603 for blocked, national, anonymous and range callers, any bypass, any blocked identity; labels only from calldir; no caller opens the breaker or plants a header; fail open, fail closed; a hang under load",
          .enabled(if: SIPTools.missing == nil, "\(SIPTools.missing ?? "")"), .timeLimit(.minutes(2)))
    func calls() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = try scratch.compile("sip.calldir", block: ["14692576503", "18005555555"], identify: ["18775555555,Telemarketer"])
        let arguments = try Self.documentedServeArguments(index: index)
        #expect(arguments.contains("--country") && arguments.contains("--anonymous"), "\(arguments)")
        let serve = try Daemon(ServeProcessTests.binary, arguments, log: scratch.file("serve.log"))
        defer { serve.stop() }
        let httpPort = try serve.waitFor(#"address=127\.0\.0\.1:(\d+)"#, then: "index loaded")
        let (sipPort, calleePort, callerPort) = (freeUDPPort(), freeUDPPort(), freeUDPPort())
        let callee = try Daemon(SIPTools.sipp, ["-sf", Self.docs + "/callee.xml", "-i", "127.0.0.1", "-p", "\(calleePort)",
                                                "-nostdin", "-trace_msg", "-message_file", scratch.file("callee.log")],
                                log: scratch.file("callee.out"))
        defer { callee.stop() }
        /// Kamailio with the documented cfg on `port`, asking `lookup` (a path on the daemon),
        /// passing calls on to `callee`.
        func kamailio(_ name: String, port: Int = freeUDPPort(), lookup: String = "/v1/lookup", callee: Int = calleePort,
                      _ defines: [String] = []) throws -> Daemon {
            let process = try Daemon(SIPTools.kamailio, [
                "-f", Self.docs + "/calldir.cfg", "-DD", "-E", "-m", "512", "-Y", scratch.path,
                "-l", "udp:127.0.0.1:\(port)",
                "-A", "CALLDIR=\"calldir=>http://127.0.0.1:\(httpPort)\(lookup)\"",
                "-A", "NEXT_HOP=\"sip:127.0.0.1:\(callee)\"",
            ] + defines.flatMap { ["-A", $0] }, log: scratch.file(name + ".log"))
            _ = try process.waitFor("Listening on")
            return process
        }
        let proxy = try kamailio("kamailio", port: sipPort)
        defer { proxy.stop() }

        // Scenarios the test derives from the documented ones: a caller that sends its own
        // label (twice, in two spellings), and a call that must be refused 503 (fail closed).
        let invite = try String(contentsOfFile: Self.docs + "/call-answered.xml", encoding: .utf8)
        let forged = scratch.write("call-forged.xml", invite.replacingOccurrences(
            of: "      Max-Forwards: 70\n      Content-Type",
            with: "      Max-Forwards: 70\n      X-Caller-Label: Your Bank\n      x-caller-label: Your Bank\n      Content-Type"))
        #expect(try String(contentsOfFile: forged, encoding: .utf8).contains("Your Bank"))
        let declined = try String(contentsOfFile: Self.docs + "/call-declined.xml", encoding: .utf8)
        let refused = scratch.write("call-refused.xml", declined.replacingOccurrences(of: #"response="603""#, with: #"response="503""#))
        let answered = Self.docs + "/call-answered.xml", decline = Self.docs + "/call-declined.xml"

        // A caller that sends an identity besides From: -key identity "P-Asserted-Identity: <sip:...>".
        let identity = [("identity-answered.xml", invite), ("identity-declined.xml", declined)].map { name, scenario in
            scratch.write(name, scenario.replacingOccurrences(of: "      Max-Forwards: 70\n      Content-Type",
                                                              with: "      Max-Forwards: 70\n      [identity]\n      Content-Type"))
        }

        /// One call with the sipp scenario for the answer it must get; the error log when it fails.
        func call(_ caller: String, _ scenario: String, via port: Int? = nil, log: Daemon? = nil, identity: String? = nil) throws {
            let errors = scratch.file("errors.log")
            try? FileManager.default.removeItem(atPath: errors)
            let sipp = try Daemon(SIPTools.sipp, [
                "127.0.0.1:\(port ?? sipPort)", "-sf", scenario, "-key", "caller", caller,
                "-s", "reception", "-i", "127.0.0.1", "-p", "\(callerPort)", "-m", "1", "-nostdin",
                "-timeout", "10s", "-recv_timeout", "3000", "-trace_err", "-error_file", errors,
            ] + (identity.map { ["-key", "identity", $0] } ?? []), log: scratch.file("caller.out"))
            let status = sipp.wait()
            let why = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            #expect(status == 0, "\(caller) through \(scenario): \(why)\n\((log ?? proxy).text)")
        }
        try call("18005555555", decline)       // blocked
        try call("18775555555", answered)      // identified: passed on with its label
        try call("12125550000", answered)      // unknown
        try call("911", answered)              // an emergency number: always allowed
        try call("anonymous", decline)         // withheld: --anonymous block
        try call("8005555555", decline)        // national caller ID of a blocked number: --country 1
        try call("8775555555", answered)       // national, identified
        // Bypass attempts: whatever follows the number, a blocked caller gets 603.
        for bypass in ["18005555555?x", "18005555555?x?format=text", "18005555555/x", "18005555555;x", "18005555555%3Fx",
                       "18005555555%3F", "1800555555%35", "18005555555?format=json", "+18005555555;npdi;rn=+12125550000"] {
            try call(bypass, decline)
        }
        try call("12125550000;npdi", answered)  // a user parameter of a caller who is not listed
        try call("12125550000", forged)         // a forged label never reaches the callee...
        try call("18775555555", forged)         // ...nor sits beside the real one
        // Issue 35: dot segments, a blocked number written as a range, an empty user part (withheld).
        for notACallerID in ["..", ".", "14692576503..14692576503", "14692576503..", "1..4692576503", ""] {
            try call(notACallerID, decline)
        }
        // Every identity is screened: blocked if any is; the asserted identity's label.
        for blocked in ["P-Asserted-Identity: <sip:14692576503@trunk.invalid>", "P-Asserted-Identity: <tel:+14692576503>",
                        "Remote-Party-ID: \"x\" <sip:14692576503@trunk.invalid>;party=calling", "P-Asserted-Identity: <sip:@trunk.invalid>",
                        "P-Asserted-Identity: <sip:1..4692576503@trunk.invalid>", "P-Asserted-Identity: not a URI"] {
            try call("12125550000", identity[1], identity: blocked)
        }
        try call("14692576503", identity[1], identity: "P-Asserted-Identity: <sip:12125550000@trunk.invalid>")
        try call("12125550000", identity[0], identity: "P-Asserted-Identity: <sip:18775555555@trunk.invalid>")
        try call("18775555555", identity[0], identity: "P-Asserted-Identity: <sip:12125550000@trunk.invalid>")
        try call("12125550000", identity[0], identity: "Remote-Party-ID: <sip:18775555555@trunk.invalid>;party=calling")

        var invites = callee.invites(in: scratch.file("callee.log"))
        #expect(invites.map(\.caller) == ["18775555555", "12125550000", "911", "8775555555", "12125550000;npdi",
                                          "12125550000", "18775555555", "12125550000", "18775555555", "12125550000"])
        // A label only where every identity has it (issue 45: never borrowed from a PAI or RPID).
        #expect(invites.map(\.labels) == [["Telemarketer"], [], [], ["Telemarketer"], [], [], ["Telemarketer"],
                                          [], [], []])

        // A burst of hostile callers cannot open the breaker: no failure logged, every call 603,
        // and a blocked caller gets 603 right after.
        let burstLog = proxy.text.utf8.count
        let burst = try SIPHostile(proxyPort: sipPort, scratch: scratch).burst(calls: 1000)
        let burstLines = String(decoding: proxy.text.utf8.dropFirst(burstLog), as: UTF8.self).split(separator: "\n")
        #expect(burst.otherAnswer == 0 && burst.declined >= 990, "\(burst)")
        #expect(!burstLines.contains { $0.contains("calldir lookup") }, "\(burstLines.filter { $0.contains("calldir lookup") })")
        try call("18005555555", decline)

        // Bytes sipp cannot send: a proxy of its own whose next hop is a socket of the test's.
        let rawCallee = UDPSocket(), rawPort = freeUDPPort()
        let raw = try kamailio("raw", port: rawPort, callee: rawCallee.port)
        SIPHostile(proxyPort: rawPort, scratch: scratch).headerInjections(callee: rawCallee)
        raw.stop()

        // An answer that is not one of the words (here /healthz's JSON) is a logged failure,
        // and with CALLDIR_FAIL_CLOSED the call is refused 503.
        let closedPort = freeUDPPort()
        let closed = try kamailio("closed", port: closedPort, lookup: "/healthz?", ["CALLDIR_FAIL_CLOSED"])
        try call("12125550000", refused, via: closedPort, log: closed)
        closed.stop()
        #expect(closed.text.contains(#"calldir lookup failed (unexpected answer '{\"status\":\"ready\""#), "\(closed.text)")

        // Load: a proxy of its own with a callee of its own (no message log), so the calls above
        // stay countable and the load's breaker is its own.
        let loadCalleePort = freeUDPPort(), loadPort = freeUDPPort()
        let loadCallee = try Daemon(SIPTools.sipp, ["-sf", Self.docs + "/callee.xml", "-i", "127.0.0.1", "-p", "\(loadCalleePort)",
                                                    "-nostdin"], log: scratch.file("load-callee.out"))
        defer { loadCallee.stop() }
        let loaded = try kamailio("load", port: loadPort, callee: loadCalleePort)
        defer { loaded.stop() }
        let load = SIPLoad(proxyPort: loadPort, callerPort: freeUDPPort(), scratch: scratch)
        try load.hang(daemon: serve, proxy: loaded)
        try call("18005555555", decline, via: loadPort, log: loaded)  // screened again after the hang

        // Nor can a caller the cfg refuses take the half-open breaker's one probe (which kept
        // every later call unscreened): one timeout opens this proxy's breaker for up to 1 s.
        let probePort = freeUDPPort()
        let probing = try kamailio("probe", port: probePort, callee: loadCalleePort, ["CALLDIR_BREAK_AFTER=1", "CALLDIR_BREAK_SECONDS=1"])
        defer { probing.stop() }
        kill(serve.pid, SIGSTOP)
        try call("12125550000", answered, via: probePort, log: probing)  // 1 s timeout, fail open
        kill(serve.pid, SIGCONT)
        usleep(1_200_000)
        try call("..", decline, via: probePort, log: probing)
        try call("18005555555", decline, via: probePort, log: probing)

        // A stopped daemon: calls go on (fail open), and a caller's own label is still removed.
        serve.stop()
        try call("18005555555", answered)
        try call("12125550000", forged)
        try load.stopped(proxy: loaded)
        invites = callee.invites(in: scratch.file("callee.log"))
        #expect(invites.suffix(2).map(\.labels) == [[], []])
        #expect(proxy.text.contains("calldir lookup failed (status 7)"), "connection refused: \(proxy.text)")
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
    let arguments: [String]
    private var status: Int32?

    init(_ executable: String, _ arguments: [String], log: String) throws {
        self.log = log
        self.arguments = arguments
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

    /// The INVITEs a sipp callee received (its -message_file): caller and every X-Caller-Label
    /// header, in any case.
    func invites(in messageLog: String) -> [(caller: String, labels: [String])] {
        let text = (try? String(contentsOfFile: messageLog, encoding: .utf8)) ?? ""
        return text.components(separatedBy: "message received").compactMap { message in
            let lines = message.split(whereSeparator: \.isNewline).map(String.init)
            guard lines.contains(where: { $0.hasPrefix("INVITE ") }),
                  let from = lines.first(where: { $0.hasPrefix("From:") }),
                  let user = from.range(of: #"sip:([^@]*)@"#, options: .regularExpression) else { return nil }
            let caller = String(from[user].dropFirst(4).dropLast())
            let labels = lines.filter { $0.lowercased().hasPrefix("x-caller-label:") }
                .map { $0.dropFirst(15).trimmingCharacters(in: .whitespaces) }
            return (caller, labels)
        }
    }
}

struct DaemonFailed: Error, CustomStringConvertible {
    var log: String
    var description: String { "the process did not become ready:\n\(log)" }
}

/// A UDP port nothing is bound to right now.
func freeUDPPort() -> Int { UDPSocket().port }
