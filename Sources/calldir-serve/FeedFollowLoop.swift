#if canImport(Glibc)
import Glibc
#endif
import AsyncHTTPClient
import CallDirFeed
import CallDirFeedTools
import CallDirServer
import Logging

/// `serve --follow URL`: polls the feed every interval (varied by up to 10%, so replicas
/// behind one load balancer spread their requests), with a conditional request for the
/// manifest (If-None-Match); a new index is installed as `calldir update` installs it
/// (verified before it replaces the file) and swapped in through the daemon's reload path.
/// Any failure keeps the old index serving and is reported on /healthz and /metrics.
final class FeedFollowLoop: Sendable {
    let url: String
    let updater: FeedUpdater
    let intervalMilliseconds: Int
    let client: HTTPClient
    let deadlines: FeedDeadlines
    let logger: Logger

    init(url: String, trusted: [FeedPublicKey], indexPath: String, intervalMilliseconds: Int, deadlines: FeedDeadlines,
         feedId: String?, rootVersion: Int64 = 1, logger: Logger) {
        self.url = url
        var updater = FeedUpdater(indexPath: indexPath, trusted: trusted)
        updater.pinnedFeed = feedId
        updater.trustedRootVersion = rootVersion
        self.updater = updater
        self.intervalMilliseconds = intervalMilliseconds
        self.deadlines = deadlines
        // Connecting must not outlast a poll interval by much; the rest is the deadlines' watch.
        let seconds = Int64(max(1, min(10, intervalMilliseconds / 1000)))
        client = HTTPFeedTransport.makeClient(connectTimeout: .seconds(seconds), readTimeout: deadlines.window)
        self.logger = logger
    }

    /// The status from the saved state, before any check: after a restart the serial, age and
    /// expiry are those of the installed index, not zeros, so an age or expiry alert still fires.
    func seed(_ status: FeedStatus) {
        let state = try? updater.readState()
        status.update({ s in
            if let state { s.record(state) }
        }, url: url)
    }

    /// One check: returns the ETag to send next time (nil after a failure, so the next poll
    /// fetches the manifest again instead of trusting a "not modified" for a failed install).
    func check(etag: String?, status: FeedStatus, holder: IndexHolder?) async -> String? {
        let now = FeedText.now()
        do {
            let transport = HTTPFeedTransport(feedURL: url, client: client, deadlines: deadlines)
            let (result, newETag) = try await updater.update(transport: transport, ifNoneMatch: etag)
            var installed = false
            if case .installed(let serial, let viaDelta, let bytes) = result {
                installed = true
                logger.info("feed: installed serial \(serial) (\(viaDelta ? "delta" : "full index"), \(bytes) bytes)")
                if let holder { _ = holder.reload(reason: "feed serial \(serial)") }
            }
            let state = try? updater.readState()
            status.update({ s in
                s.checks += 1
                s.lastCheck = now
                s.lastSuccess = now
                s.lastError = nil
                s.stalled = false
                if installed { s.updates += 1 }
                if let state { s.record(state) }
            }, url: url)
            return newETag
        } catch {
            let text = FeedText.printable("\(error)")
            logger.warning("feed: \(text); the current index keeps serving")
            let state = try? updater.readState()
            status.update({ s in
                s.checks += 1
                s.failures += 1
                s.lastCheck = now
                s.lastError = text
                s.stalled = (error as? FeedError)?.check == .timeout
                if let state { s.record(state) }
            }, url: url)
            return nil
        }
    }

    /// Polls until the process exits; the first check at once unless `checked` (the daemon
    /// started without an index and has just fetched one).
    func start(status: FeedStatus, holder: IndexHolder, checked: Bool, firstETag: String?) {
        Task.detached { [self] in
            var etag = firstETag
            var wait = checked
            while true {
                if wait {
                    let jitter = Double.random(in: 0.9...1.1)
                    try? await Task.sleep(nanoseconds: UInt64(Double(intervalMilliseconds) * jitter * 1_000_000))
                }
                wait = true
                etag = await check(etag: etag, status: status, holder: holder)
            }
        }
    }
}

extension FeedStatus.Snapshot {
    /// The installed manifest's serial, creation and expiry, from the state file.
    mutating func record(_ state: FeedState) {
        serial = state.serial
        manifestCreated = state.manifestCreated
        expires = state.expires ?? 0
    }
}
