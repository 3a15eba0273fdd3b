#if canImport(Glibc)
import Glibc
#endif
import CallDirFeed
import CallDirFeedTools
import CallDirOptions
import CallDirReader

/// `publish --shards` and `update --shards` (FEED-PROTOCOL.md, "Sharded feeds"): their reports.
extension FeedRunner {
    static func publishShards(_ shards: String, options: PublishOptions, key: FeedPrivateKey, settings: FeedPublisher.Options) throws {
        let channels = try FeedShardPublisher.publish(shards: shards, feed: options.feed, key: key, options: settings)
        if options.json {
            say(1, JSONValue.object([
                ("feed", .string(options.feed)), ("shards", .string(shards)),
                ("channels", .array(channels.map { channel in
                    .object([("extension", .string(channel.extensionIdentifier)), ("published", .bool(channel.published != nil)),
                             ("retired", .bool(channel.retired))]
                            + publicationMembers(channel.manifest, channel.published, composed: false))
                })),
            ]).rendered() + "\n")
            return
        }
        for channel in channels {
            let m = channel.manifest
            say(1, channel.published == nil
                ? "unchanged: channel \(channel.extensionIdentifier) stays at serial \(m.serial) (expires \(FeedText.timestamp(m.expires)))\n"
                : "published serial \(m.serial) of channel \(channel.extensionIdentifier): index \(m.index.sha256.prefix(16))… "
                  + "(\(m.index.size) bytes), \(m.deltas.count) delta(s), expires \(FeedText.timestamp(m.expires))"
                  + (channel.retired ? " (no shard names it: an empty index)\n" : "\n"))
        }
        let published = channels.filter { $0.published != nil }.count
        say(1, "\(published) of \(channels.count) channel(s) published in \(options.feed)/\(FeedChannel.folder)/; "
            + "\(FeedChannel.shardManifestName) signed\n")
    }

    /// Prints each channel's result (errors on stderr), then exits with the first failure's
    /// status when a channel or the shard manifest failed.
    static func reportShards(_ report: FeedShardFolderUpdater.Report, shards: String, json: Bool) throws {
        var failures: [any Error] = []
        var lines: [JSONValue] = []
        for channel in report.channels {
            switch channel.result {
            case .success(let result):
                if json {
                    guard case .object(let members) = updateJSON(result, index: channel.index) else { continue }
                    lines.append(.object([("extension", .string(channel.extensionIdentifier))] + members))
                } else {
                    say(1, updateLine(result, index: channel.index) + " (channel \(channel.extensionIdentifier))\n")
                }
            case .failure(let error):
                failures.append(error)
                say(2, "calldir: error: channel \(channel.extensionIdentifier): \(error)\n")
                lines.append(.object([("extension", .string(channel.extensionIdentifier)), ("index", .string(channel.index)),
                                      ("error", .string(FeedText.printable("\(error)")))]))
            }
        }
        var written: JSONValue = .null
        switch report.shardManifest {
        case .success(let changed)?:
            written = .bool(changed)
            if !json { say(1, changed ? "updated: \(shards)\n" : "up to date: \(shards)\n") }
        case .failure(let error)?:
            failures.append(error)
            say(2, "calldir: error: \(error)\n")
        case nil:
            say(2, "calldir: \(shards) kept: a channel failed, so the shards are not all the feed's\n")
        }
        if json {
            say(1, JSONValue.object([("shards", .string(shards)), ("shardsUpdated", written), ("channels", .array(lines))]).rendered() + "\n")
        }
        if let first = failures.first { exit(FeedError.exitStatus(for: first).rawValue) }
    }
}
