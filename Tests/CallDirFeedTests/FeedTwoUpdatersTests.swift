import CallDirFeed
import Foundation
import Testing
import TestSupport

/// Two updaters of one index (issue 45): a cron `update` from a slow mirror and another from
/// the origin (or a `serve --follow` poll) on the same index, and Ctrl-C during an update.
/// Each updater installs under the lock of the index's folder and re-checks the serial there.
@Suite("Two updaters of one index", .serialized, .tags(.endToEnd), .skippedInFastLoop)
struct FeedTwoUpdatersTests {
    typealias Setup = FeedServerTests.Setup

    /// The origin at serial 4, a mirror that stopped at serial 3 (both on the hostile server),
    /// and the compiled versions.
    static func origin(_ s: Setup) throws -> (mirror: String, origin: ChildServer, slow: ChildServer) {
        var numbers = s.v1
        let mirror = s.scratch.file("mirror")
        for version in 2...4 {
            numbers = FeedBin.churned(numbers, fraction: 0.02, seed: UInt64(version))
            try FeedBin.compile(numbers, in: s.scratch, name: "v\(version).calldir")
            if version == 4 { try FileManager.default.copyItem(atPath: s.feed, toPath: mirror) }
            try s.publish("v\(version).calldir")
        }
        let origin = try ChildServer.hostile(root: s.feed)
        do { return (mirror, origin, try ChildServer.hostile(root: mirror)) } catch { origin.stop(); throw error }
    }

    static func manifest(_ folder: String) throws -> FeedManifest {
        try FeedManifest.parse(Array(try #require(FeedBin.bytes(folder + "/manifest.json"))))
    }

    static func state(_ index: String) -> FeedState? {
        FeedBin.bytes(index + ".feed-state").flatMap { try? FeedState.parse(Array($0), name: "state") }
    }

    @Test("a slow mirror's update (serial 3) ending after the origin's (serial 4) on the same index: refused (66, 'rollback'), index and state stay at serial 4")
    func slowMirrorDoesNotRollBack() throws {
        let s = try Setup()
        defer { s.scratch.remove() }
        let (mirror, origin, slow) = try Self.origin(s)
        defer { origin.stop(); slow.stop() }
        // The mirror's index arrives 4 s after it is asked for (rules.json is shared, by path).
        try FeedAdversaryTests.rules(s, [try Self.manifest(mirror).index.path: "late"])
        let v4 = FeedBin.bytes(s.scratch.file("v4.calldir"))
        var rolledBack = 0
        let rounds = 3
        for round in 0..<rounds {
            let index = s.scratch.file("follower/race-\(round).calldir")
            let cron = try Started(["update", "--feed", slow.url, "--trusted-key", s.publicKey, "--index", index, "--json"])
            usleep(1_500_000)  // the mirror's manifest is checked; its index is on its way
            let fast = try s.update(origin.url, index: index)
            let late = cron.wait()
            #expect(fast.status == 0, "\(fast.stderr)")
            #expect(!late.killed)
            if Self.state(index)?.serial != 4 || FeedBin.bytes(index) != v4 { rolledBack += 1 }
            #expect(late.status == 66 && late.stderr.contains("feed check 'rollback' failed"), "round \(round): \(late.status) \(late.stdout)\(late.stderr)")
        }
        #expect(rolledBack == 0, "rolled back \(rolledBack) of \(rounds)")
    }

    @Test("serve --follow installing the origin's serial 4 while a cron update from a slow mirror (serial 3) downloads, on the same index: the cron update is refused (66), the daemon's index stays at 4")
    func daemonAndCronUpdate() throws {
        let s = try Setup()
        defer { s.scratch.remove() }
        let (mirror, origin, slow) = try Self.origin(s)
        defer { origin.stop(); slow.stop() }
        try FeedAdversaryTests.rules(s, [try Self.manifest(mirror).index.path: "late"])
        let cron = try Started(["update", "--feed", slow.url, "--trusted-key", s.publicKey, "--index", s.follower, "--json"])
        usleep(1_500_000)
        // A daemon without an index fetches one before it answers; it polls again only after a minute.
        let port = ChildServer.freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: FeedBin.path("calldir-serve"))
        process.arguments = ["--index", s.follower, "--port", String(port), "--poll-interval", "0", "--follow", origin.url,
                             "--trusted-key", s.publicKey, "--follow-interval", "60000", "--log-level", "critical"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let daemon = ChildServer(process: process, port: port)
        defer { daemon.stop() }
        #expect(ChildServer.waitUntilListening(port))
        let late = cron.wait()
        #expect(late.status == 66 && late.stderr.contains("feed check 'rollback' failed"), "\(late.status) \(late.stdout)\(late.stderr)")
        #expect(FeedBin.bytes(s.follower) == FeedBin.bytes(s.scratch.file("v4.calldir")), "the index was rolled back")
        #expect(Self.state(s.follower)?.serial == 4)
    }

    @Test("two updates of one index from one feed at once both succeed (no shared temporary name) and leave the feed's index")
    func twoUpdatesAtOnce() throws {
        let s = try Setup()
        defer { s.scratch.remove() }
        let (_, origin, slow) = try Self.origin(s)
        defer { origin.stop(); slow.stop() }
        try FeedAdversaryTests.rules(s, [try Self.manifest(s.feed).index.path: "late"])  // both downloads overlap
        let v4 = FeedBin.bytes(s.scratch.file("v4.calldir"))
        var failed = 0
        let rounds = 3
        for round in 0..<rounds {
            let index = s.scratch.file("follower/pair-\(round).calldir")
            let arguments = ["update", "--feed", origin.url, "--trusted-key", s.publicKey, "--index", index, "--json"]
            let runs = try [Started(arguments), Started(arguments)]
            for result in runs.map({ $0.wait() }) where result.status != 0 {
                failed += 1
                Issue.record("round \(round): \(result.status) \(result.stderr)")
            }
            #expect(FeedBin.bytes(index) == v4 && Self.state(index)?.serial == 4)
        }
        #expect(failed == 0, "\(failed) of \(2 * rounds) updates failed")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: s.scratch.file("follower"))
            .filter { $0.contains(".calldir.tmp.") || $0.contains("feed-new") || $0.contains("feed-delta") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test("Ctrl-C during an update exits 130 and removes its temporaries at once (docs/CLI.md, 130)")
    func interruptRemovesTemporaries() throws {
        try FeedAdversaryTests.withHostileServer { s, server in
            try FeedAdversaryTests.rules(s, [try s.manifest().index.path: "trickle"])
            let update = try Started(["update", "--feed", server.url, "--trusted-key", s.publicKey, "--index", s.follower])
            let folder = s.scratch.file("follower")
            func temporaries() -> [String] {
                ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasPrefix(".") }
            }
            for _ in 0..<100 where temporaries().isEmpty { usleep(50_000) }  // the download has begun
            try #require(!temporaries().isEmpty, "no temporary appeared")
            kill(update.process.processIdentifier, SIGINT)
            let result = update.wait(limit: 30)
            #expect(!result.killed && result.status == 130, "\(result.status) \(result.stderr)")
            #expect(temporaries().isEmpty, "\(temporaries())")
            #expect(!FileManager.default.fileExists(atPath: s.follower))
        }
    }
}

/// `calldir ARGS` started now; `wait()` returns its result (killed after `limit` seconds).
final class Started: @unchecked Sendable {  // out and err are written before `group` is left, read after
    let process = Process()
    private var out = Data(), err = Data()
    private let group = DispatchGroup()

    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: FeedBin.path("calldir"))
        process.arguments = arguments
        let o = Pipe(), e = Pipe()
        process.standardOutput = o
        process.standardError = e
        process.standardInput = FileHandle.nullDevice
        try process.run()
        group.enter()
        DispatchQueue.global().async { self.out = o.fileHandleForReading.readDataToEndOfFile(); self.group.leave() }
        group.enter()
        DispatchQueue.global().async { self.err = e.fileHandleForReading.readDataToEndOfFile(); self.group.leave() }
    }

    func wait(limit: Double = 60) -> FeedBin.Result {
        var killed = false
        if group.wait(timeout: .now() + limit) == .timedOut {
            killed = true
            kill(process.processIdentifier, SIGKILL)
            group.wait()
        }
        process.waitUntilExit()
        return FeedBin.Result(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
                              stderr: String(decoding: err, as: UTF8.self), killed: killed)
    }
}
