#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import CallDirPatch
import CallDirFeed
import CallDirOptions
import CallDirFeedTools
import CallDirReader
import CallDirWriter
import Dispatch

/// Runs the feed's commands (their options and help are in CallDirOptions; `calldir`
/// checks them first and execs this with the command's name).
enum FeedRunner {
    static func main(_ command: FeedCommandName, arguments: [String]) -> Never {
        do {
            switch command {
            case .keygen: try keygen(KeygenOptions.parse(arguments))
            case .publish:
                TemporaryFiles.installInterruptCleanup()  // Ctrl-C: 130, temporaries removed (docs/CLI.md)
                try publish(PublishOptions.parse(arguments))
            case .update:
                TemporaryFiles.installInterruptCleanup()
                try update(UpdateOptions.parse(arguments))
            case .verifyFeed: try verifyFeed(VerifyFeedOptions.parse(arguments))
            }
            exit(ExitStatus.success.rawValue)
        } catch let error as FeedError {
            say(2, "calldir: error: \(error)\n")
            exit(FeedError.exitStatus(for: error).rawValue)
        } catch let error as CallDirError {
            say(2, "calldir: error: \(error)\n")
            exit(FeedError.exitStatus(for: error).rawValue)
        } catch {
            KeygenOptions.exit(withError: error)
        }
    }

    static func say(_ fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { _ = write(fd, $0.baseAddress, $0.count) }
    }

    static func trusted(_ texts: [String]) throws -> [FeedPublicKey] { try texts.map { try FeedPublicKey(text: $0) } }

    static func keygen(_ options: KeygenOptions) throws {
        let key = FeedPrivateKey()
        let fd = open(options.output, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw FeedError(.usage, "cannot create the key file: \(String(cString: strerror(errno))) (an existing key is never replaced)",
                            path: options.output)
        }
        var text = key.fileText
        let written = text.withUTF8 { write(fd, $0.baseAddress, $0.count) }
        guard written == key.fileText.utf8.count, fsync(fd) == 0, close(fd) == 0 else {
            unlink(options.output)
            throw FeedError(.install, "cannot write the key file", path: options.output)
        }
        say(1, key.publicKey.text + "\n")
        say(2, "calldir: private key in \(options.output) (key id \(key.publicKey.keyId)); give followers the public key above as --trusted-key\n")
    }

    static func privateKey(_ path: String) throws -> FeedPrivateKey {
        guard let keyText = try FeedFiles.read(path, maxBytes: 4096) else {
            throw FeedError(.usage, "no such key file (make one with `calldir keygen -o FILE`)", path: path)
        }
        return try FeedPrivateKey(fileText: String(decoding: keyText, as: UTF8.self), path: path)
    }

    /// A publication as `publish --json` prints it (one index, or each channel of `--shards`):
    /// the manifest now, and what the publication added and pruned (nil: nothing published).
    static func publicationMembers(_ m: FeedManifest, _ outcome: FeedPublisher.Outcome?, composed: Bool) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [
            ("serial", .int(m.serial)), ("sha256", .string(m.index.sha256)), ("size", .int(m.index.size)),
            ("expires", .string(FeedText.timestamp(m.expires))),
            ("deltas", .array(m.deltas.map { .object([("from", .string($0.from)), ("size", .int($0.size))]) })),
            ("newDeltas", .int(Int64(outcome?.newDeltas ?? 0))),
        ]
        if composed { members.append(("composedDeltas", .int(Int64(outcome?.composedDeltas ?? 0)))) }
        members.append(("pruned", .array((outcome?.pruned ?? []).map { .string($0) })))
        return members
    }

    static func publish(_ options: PublishOptions) throws {
        let key = try privateKey(options.key)
        var settings = FeedPublisher.Options()
        settings.keep = options.keep
        guard let expires = FeedText.duration(options.expires), let grace = FeedText.duration(options.grace) else {
            throw FeedError(.usage, "--expires and --grace take a duration such as 90s, 30m, 12h or 7d")
        }
        settings.expiresAfter = expires
        settings.grace = grace
        settings.feedId = options.feedId
        settings.rotateFrom = try options.rotateFrom.map(privateKey)
        if let shards = options.shards { return try publishShards(shards, options: options, key: key, settings: settings) }
        guard let index = options.index else { throw FeedError(.usage, "give the index to publish, or --shards") }
        let outcome = try FeedPublisher.publish(index: index, feed: options.feed, key: key, options: settings)
        let m = outcome.manifest
        if options.json {
            say(1, JSONValue.object([("feed", .string(options.feed)), ("feedId", .string(m.feed ?? ""))]
                                    + publicationMembers(m, outcome, composed: true)).rendered() + "\n")
        } else {
            say(1, "published serial \(m.serial) of feed \(m.feed ?? "") in \(options.feed): index \(m.index.sha256.prefix(16))… (\(m.index.size) bytes), "
                + (m.deltas.isEmpty ? "no delta, " : "\(m.deltas.count) delta(s) (\(m.deltas.map { String($0.size) }.joined(separator: ", ")) bytes), ")
                + "expires \(FeedText.timestamp(m.expires)); pruned \(outcome.pruned.count) file(s)\n")
        }
    }

    static func update(_ options: UpdateOptions) throws {
        let keys = try trusted(options.keys.trustedKeys)
        let terminal = isatty(2) != 0
        var progress: (@Sendable (Int64, Int64) -> Void)?
        if terminal {
            progress = { got, total in
                guard total > 1 << 20 else { return }
                say(2, "\r\(got * 100 / total)% of \(total) bytes")
            }
        }
        if let shards = options.shards {
            var updater = FeedShardFolderUpdater(shardsPath: shards, trusted: keys)
            updater.trustedRootVersion = Int64(options.keys.rootVersion)
            updater.progress = progress
            let report = try overHTTP(options) { [updater] in try await updater.update(transport: $0) }
            if terminal { say(2, "\r\u{1B}[K") }
            return try reportShards(report, shards: shards, json: options.json)
        }
        guard let index = options.index else { throw FeedError(.usage, "--index is required") }
        var updater = FeedUpdater(indexPath: index, trusted: keys)
        updater.pinnedFeed = options.feedId
        updater.trustedRootVersion = Int64(options.keys.rootVersion)
        updater.progress = progress
        let result = try overHTTP(options) { [updater] in try await updater.update(transport: $0) }
        if terminal { say(2, "\r\u{1B}[K") }
        say(1, options.json ? updateJSON(result, index: index).rendered() + "\n" : updateLine(result, index: index) + "\n")
    }

    /// Runs `body` with an HTTP transport to `--feed` and the options' deadlines, then shuts the client down.
    static func overHTTP<T: Sendable>(_ options: UpdateOptions,
                                      _ body: @escaping @Sendable (HTTPFeedTransport) async throws -> T) throws -> T {
        var deadlines = FeedDeadlines()
        deadlines.total = .seconds(Int64(options.timeout))
        deadlines.minimumRate = Int64(options.minRate)
        deadlines.window = .seconds(Int64(options.stallWindow))
        let url = options.feed
        return try runBlocking { [deadlines] in
            let client = HTTPFeedTransport.makeClient(readTimeout: deadlines.window)
            do {
                let outcome = try await body(HTTPFeedTransport(feedURL: url, client: client, deadlines: deadlines))
                try? await client.shutdown()
                return outcome
            } catch {
                try? await client.shutdown()
                throw error
            }
        }
    }

    /// `update --json`'s object for one index (members in this order).
    static func updateJSON(_ result: FeedUpdater.Result, index: String) -> JSONValue {
        switch result {
        case .upToDate(let serial):
            return .object([("index", .string(index)), ("serial", .int(serial)), ("updated", .bool(false))])
        case .installed(let serial, let viaDelta, let downloaded):
            return .object([("index", .string(index)), ("serial", .int(serial)), ("updated", .bool(true)),
                            ("via", .string(viaDelta ? "delta" : "full")), ("downloaded", .int(downloaded))])
        }
    }

    static func updateLine(_ result: FeedUpdater.Result, index: String) -> String {
        switch result {
        case .upToDate(let serial): return "up to date: \(index) is at serial \(serial)"
        case .installed(let serial, let viaDelta, let downloaded):
            return "updated: \(index) is at serial \(serial) (\(viaDelta ? "delta" : "full index"), \(downloaded) bytes downloaded)"
        }
    }

    static func verifyFeed(_ options: VerifyFeedOptions) throws {
        let keys = try trusted(options.keys.trustedKeys)
        let feed = options.feed, version = Int64(options.keys.rootVersion)
        let report = try runBlocking { try await FeedFolderCheck.run(feed: feed, trusted: keys, trustedVersion: version) }
        let m = report.manifest
        say(1, options.json ? JSONValue.object([("feed", .string(feed)), ("ok", .bool(true)), ("feedId", m.feed.map { JSONValue.string($0) } ?? .null),
                                               ("serial", .int(m.serial)),
                                               ("expires", .string(FeedText.timestamp(m.expires))),
                                               ("files", .int(Int64(report.checkedFiles)))]).rendered() + "\n"
                            : "ok: \(feed): serial \(m.serial), \(report.checkedFiles) file(s) match the manifest, signed by \(m.keyId), "
                              + "expires \(FeedText.timestamp(m.expires)), feed id \(m.feed ?? "none (format 1)")\n")
    }
}

/// Runs async work to completion from a synchronous command.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = BlockingBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try box.result!.get()
}

private final class BlockingBox<T>: @unchecked Sendable {  // written once by the task, read after the semaphore
    var result: Result<T, any Error>?
}
