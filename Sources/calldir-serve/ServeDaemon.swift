#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import CallDirLookup
import CallDirReader
import CallDirServer
import Logging
import CallDirOptions
import CallDirFeed
import CallDirWriter
import CallDirFeedTools
import CallDirReader

/// calldir's network executable: the lookup daemon, usually started as `calldir serve` (which
/// execs this with the same arguments), and the signed feed's commands (`calldir keygen`,
/// `publish`, `update`, `verify --feed` exec it with the command's name first). Kept out of
/// `calldir` and `calldir-cli` so that they never load SwiftNIO, swift-crypto or the HTTP client.
@main
struct ServeDaemon: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calldir-serve",
        abstract: "Run calldir's network side: the lookup daemon (`calldir serve`) and the signed feed's keygen, publish and update.",
        discussion: ServeOptions.discussion,
        version: CallDirVersion.string
    )

    @OptionGroup var options: ServeOptions

    /// `calldir keygen`, `publish`, `update` and `verify --feed` exec this executable with the
    /// command's name first (FeedCommands.swift): it links swift-crypto and the HTTP client.
    static func main() {
        if let first = CommandLine.arguments.dropFirst().first, let command = FeedCommandName(rawValue: first) {
            FeedRunner.main(command, arguments: Array(CommandLine.arguments.dropFirst(2)))
        }
        main(nil)
    }

    func run() throws {
        let level = Logger.Level(rawValue: options.logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        guard let index = options.index ?? getenv("CALLDIR_INDEX").map({ String(cString: $0) }), !index.isEmpty else {
            throw ValidationError("Give --index FILE (`calldir serve` fills in the default index).")
        }
        var config = ServerConfiguration(indexPath: index)
        config.host = options.host
        config.port = options.port
        config.country = options.country
        config.region = options.countryOption?.region
        config.checksNANP = !options.callerPolicy.isLenient
        config.policy = CallerIDPolicy(withheld: CallerIDAction(rawValue: options.callerPolicy.anonymous) ?? .allow,
                                       invalid: CallerIDAction(rawValue: options.callerPolicy.invalid) ?? .allow)
        if let threads = options.threads { config.threads = threads }
        config.pollIntervalNanoseconds = Int64(options.pollInterval) * 1_000_000
        config.logRequests = options.logRequests
        config.requireIndex = options.requireIndex
        config.handleSignals = true
        // --follow: a daemon without an index fetches one from the feed before it answers.
        var follower: FeedFollowLoop?
        let firstStatus = FeedStatus()
        var firstETag: String?
        var fetchedFirst = false
        if let url = options.follow {
            // The follower renames new indexes over --index: never over a device, FIFO or link.
            do { try AtomicFile.requireRegularOrAbsent(index, role: "--follow") } catch let error as CallDirError {
                throw ValidationError(error.description)
            }
            let keys: [FeedPublicKey]
            do { keys = try options.trustedKeys.map { try FeedPublicKey(text: $0) } } catch { throw ValidationError("\(error)") }
            var deadlines = FeedDeadlines()
            deadlines.minimumRate = Int64(options.followMinRate)
            deadlines.window = .seconds(Int64(options.followStallWindow))
            let loop = FeedFollowLoop(url: url, trusted: keys, indexPath: index, intervalMilliseconds: options.followInterval,
                                      deadlines: deadlines, feedId: options.feedId, rootVersion: Int64(options.rootVersion),
                                      logger: Logger(label: "calldir.feed"))
            follower = loop
            loop.seed(firstStatus)
            if access(index, F_OK) != 0 {
                fetchedFirst = true
                firstETag = try runBlocking { await loop.check(etag: nil, status: firstStatus, holder: nil) }
            }
        }
        let server: LookupServer
        do {
            server = try LookupServer(configuration: config, logger: Logger(label: "calldir.serve"))
            if let follower, let first = firstStatus.snapshot {
                // The saved state (or the first fetch) reported from the first request on.
                server.metrics.feed.update({ $0 = first }, url: first.url)
                follower.start(status: server.metrics.feed, holder: server.holder, checked: fetchedFirst, firstETag: firstETag)
            }
            try server.start()
        } catch {
            writeError("calldir: error: \((error as? CallDirError)?.description ?? "\(error)")\n")
            throw ExitCode(ExitStatus.error.rawValue)
        }
        server.waitUntilStopped()
    }

    private func writeError(_ text: String) {
        var text = text
        text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    }
}
