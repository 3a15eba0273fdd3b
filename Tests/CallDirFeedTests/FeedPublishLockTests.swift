import CallDirFeed
import Foundation
import Testing
import TestSupport

/// One publisher at a time (issue 34, finding 4), and a publisher that survives a hostile
/// folder: `calldir publish` as the operator runs it.
@Suite("Feed publish lock", .serialized, .tags(.endToEnd), .skippedInFastLoop)
struct FeedPublishLockTests {
    typealias Setup = FeedServerTests.Setup

    /// Every file under `folder` with its bytes, for "nothing changed".
    static func snapshot(_ folder: String) -> [String: Data] {
        var files: [String: Data] = [:]
        for name in FileManager.default.enumerator(atPath: folder)?.compactMap({ $0 as? String }) ?? [] {
            files[name] = FeedBin.bytes(folder + "/" + name) ?? Data()
        }
        return files
    }

    @Test("a publish while another holds the feed folder's lock is refused (75, 'busy') with nothing changed; it succeeds once released")
    func refusedWhileLocked() throws {
        let s = try Setup()
        defer { s.scratch.remove() }
        try FeedBin.compile(FeedBin.churned(s.v1, fraction: 0.02, seed: 2), in: s.scratch, name: "v2.calldir")
        let before = Self.snapshot(s.feed)
        let fd = open(s.feed, O_RDONLY | O_DIRECTORY)
        try #require(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
        let refused = try FeedBin.run(["publish", s.scratch.file("v2.calldir"), "--feed", s.feed, "--key", s.scratch.file("feed.key")])
        close(fd)
        #expect(refused.status == 75, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stderr.contains("feed check 'busy' failed") && refused.stderr.contains("nothing was changed"), "\(refused.stderr)")
        #expect(Self.snapshot(s.feed) == before)
        try s.publish("v2.calldir")
        #expect(try s.manifest().serial == 2)
    }

    @Test("publishes started together: each one publishes or is refused as busy; serials never repeat and the feed always verifies")
    func concurrentPublishes() throws {
        let s = try Setup()
        defer { s.scratch.remove() }
        var numbers = s.v1
        for version in 2...9 {
            numbers = FeedBin.churned(numbers, fraction: 0.02, seed: UInt64(version))
            try FeedBin.compile(numbers, in: s.scratch, name: "v\(version).calldir")
        }
        var serials: [Int64] = []
        for round in 0..<2 {
            let results = ConcurrentRuns.run((0..<4).map { i in
                ["publish", s.scratch.file("v\(2 + round * 4 + i).calldir"), "--feed", s.feed, "--key", s.scratch.file("feed.key"),
                 "--keep", "2", "--json"]
            })
            for result in results {
                let result = try #require(result)
                #expect(result.status == 0 || result.status == 75, "\(result.stderr)")
                if result.status == 0, let serial = try? FeedJSONInt.serial(result.stdout) { serials.append(serial) }
            }
            let verify = try FeedBin.run(["verify", "--feed", s.feed, "--trusted-key", s.publicKey])
            #expect(verify.status == 0, "round \(round): \(verify.stderr)")
        }
        #expect(!serials.isEmpty && Set(serials).count == serials.count, "\(serials)")
    }

    @Test("a planted history/ file with serial Int64.max, and --expires beyond its bound, are refused without a trap or a change")
    func hostileHistoryAndExpires() throws {
        let s = try Setup()
        defer { s.scratch.remove() }
        try FeedBin.compile(FeedBin.churned(s.v1, fraction: 0.02, seed: 2), in: s.scratch, name: "v2.calldir")
        var planted = try s.manifest()
        planted.serial = Int64.max
        try Data(planted.rendered()).write(to: URL(fileURLWithPath: s.feed + "/history/\(Int64.max).json"))
        let before = Self.snapshot(s.feed)
        for expires in ["3000000d", "367d", "106751991167300d"] {
            let result = try FeedBin.run(["publish", s.scratch.file("v2.calldir"), "--feed", s.feed, "--key", s.scratch.file("feed.key"),
                                          "--expires", expires])
            #expect(result.status == 64, "--expires \(expires): \(result.stderr)")
            #expect(Self.snapshot(s.feed) == before)
        }
        // The verified manifest gives the next serial; the planted file cannot.
        try s.publish("v2.calldir", ["--expires", "366d"])
        #expect(try s.manifest().serial == 2)
        // Without a manifest, the planted serial has no successor: refused, not trapped.
        try FileManager.default.removeItem(atPath: s.feed + "/manifest.json")
        let result = try FeedBin.run(["publish", s.scratch.file("v1.calldir"), "--feed", s.feed, "--key", s.scratch.file("feed.key")])
        #expect(result.status == 65 && result.stderr.contains("no next serial"), "\(result.status) \(result.stderr)")
    }

    @Test("publish prunes only the feed's own names in index/ and delta/, and refuses a folder linked elsewhere (64) with the linked files kept")
    func pruneOnlyOwnFiles() throws {
        let s = try Setup()
        defer { s.scratch.remove() }
        let planted = ["index/notes.txt", "index/backup.calldir", "delta/README", "delta/old.calldelta.bak", "index/.keep"]
        for name in planted { try Data("mine".utf8).write(to: URL(fileURLWithPath: s.feed + "/" + name)) }
        try FeedBin.compile(FeedBin.churned(s.v1, fraction: 0.02, seed: 2), in: s.scratch, name: "v2.calldir")
        try s.publish("v2.calldir", ["--grace", "1s"])
        let deleted = planted.filter { !FileManager.default.fileExists(atPath: s.feed + "/" + $0) }
        #expect(deleted.isEmpty, "\(deleted.count) of \(planted.count) unrelated files deleted: \(deleted)")
        // A feed whose delta/ is a symbolic link to another folder.
        let elsewhere = s.scratch.file("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        let theirs = ["a.txt", "b.calldelta"]
        for name in theirs { try Data("theirs".utf8).write(to: URL(fileURLWithPath: elsewhere + "/" + name)) }
        let linked = s.scratch.file("linked")
        try FileManager.default.createDirectory(atPath: linked, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: linked + "/delta", withDestinationPath: elsewhere)
        let result = try FeedBin.run(["publish", s.scratch.file("v1.calldir"), "--feed", linked, "--key", s.scratch.file("feed.key")])
        #expect(result.status == 64 && result.stderr.contains("symbolic link"), "\(result.status) \(result.stderr)")
        #expect(theirs.allSatisfy { FileManager.default.fileExists(atPath: elsewhere + "/" + $0) })
        #expect(!FileManager.default.fileExists(atPath: linked + "/manifest.json"))
    }
}

/// The serial `publish --json` printed.
enum FeedJSONInt {
    static func serial(_ text: String) throws -> Int64 {
        guard case .int(let v)? = try FeedJSON.parse(Array(text.utf8.filter { $0 != 0x0A }), name: "stdout")["serial"] else {
            throw TestFailure("no serial in \(text)")
        }
        return v
    }
}

/// Results of runs started together, in order.
final class ConcurrentRuns: @unchecked Sendable {  // guarded by lock
    let lock = NSLock()
    var values: [Int: FeedBin.Result?] = [:]

    /// `calldir ARGS` for each argument list, all at once.
    static func run(_ arguments: [[String]]) -> [FeedBin.Result?] {
        let runs = ConcurrentRuns()
        DispatchQueue.concurrentPerform(iterations: arguments.count) { i in
            let value = try? FeedBin.run(arguments[i])
            runs.lock.withLock { runs.values[i] = value }
        }
        return arguments.indices.map { runs.values[$0] ?? nil }
    }
}
