#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import CallDirOptions
import CallDirLookup
import CallDirReader

/// The signed update feed (FEED-PROTOCOL.md). These commands check their options here,
/// then exec `calldir-serve`, which links swift-crypto and the HTTP client, so that this
/// executable (and with it `calldir lookup -`) links neither.
enum FeedExec {
    static func run(_ name: FeedCommandName, skipping: Int) -> Never {
        let arguments = Array(CommandLine.arguments.dropFirst(skipping))
        SiblingExecutable.exec("calldir-serve", arguments: [name.rawValue] + arguments)
        exit(ExitStatus.error.rawValue)
    }
}

struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Make an Ed25519 key pair for signing a feed.",
        discussion: """
        Writes the private key to the file (mode 0600) and prints the public key, one line \
        (ed25519:<64 hex>), to give followers as --trusted-key. Keep the private key where \
        `calldir publish` runs (a CI secret) and nowhere else.
        Example: calldir keygen -o feed.key > feed.pub
        """
    )
    @OptionGroup var options: KeygenOptions
    func run() throws { FeedExec.run(.keygen, skipping: 2) }
}

struct PublishCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Add an index to a signed feed folder that any HTTP server or CDN can serve as is.",
        discussion: """
        Writes the index under its SHA-256 (index/<sha256>.calldir), a delta to it from each \
        of the last --keep published indexes (delta/<sha256>.calldelta), then manifest.json \
        (serial, times, sizes, digests) and manifest.json.sig (Ed25519 over its exact bytes), \
        each published atomically: a reader never sees a manifest naming a missing file. Files \
        that no manifest of the last --grace names are removed. One publish at a time: the \
        feed folder is locked, and a second publish meanwhile is refused with nothing changed.
        Example: calldir publish today.calldir --feed /srv/feed --key feed.key --keep 7

        Sharded (one list over several Call Directory extensions): --shards publishes each \
        shard `calldir shard` wrote as its extension's channel, FEED/shards/<extension id>/, \
        a normal feed whose feed id is the extension's identifier (deltas per channel), then \
        FEED/shards.json and its signature. A shard whose channel holds it already is left as \
        it is (same serial: its followers download nothing), unless its manifest has less than \
        half of --expires left or --rotate-from is given; then it is published again.
        Example: calldir shard --index today.calldir --by kind --extension-prefix \
        com.example.Blocker -o today/ && calldir publish --shards today/shards.json \
        --feed /srv/feed --key feed.key
        """ + "\n\n" + FeedHelp.exitStatus
    )
    @OptionGroup var options: PublishOptions
    func run() throws { FeedExec.run(.publish, skipping: 2) }
}

struct UpdateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Bring an index up to date from a signed feed (one shot, for cron).",
        discussion: """
        Verifies the feed's manifest with a trusted key, refuses another feed's manifest (the \
        feed id is pinned at the first update), a lower serial than the installed one \
        (rollback) and an expired manifest (a frozen feed), downloads the delta from the \
        installed index when the feed offers one that is smaller, else the whole index, \
        checking size and SHA-256 as it arrives and aborting a download slower than --min-rate \
        or an update longer than --timeout; patches, checks the result against the manifest, \
        records the serial in <index>.feed-state and only then replaces the index (atomically). \
        Any failure leaves the installed index as it was.
        Example: calldir update --feed https://lists.example/spam --trusted-key ed25519:1f0c...

        Sharded feeds (publish --shards): --shards DIR/shards.json updates a folder of shards \
        for lookup --shards: each shard the feed's shards.json names from its extension's \
        channel (the same checks, a delta when it can, each pinned to its extension's \
        identifier), every channel tried even when one fails; then the feed's shards.json, \
        verified (signature, and each shard against the index installed), replaces DIR's. \
        Exit status: the first failed channel's.
        Example: calldir update --feed https://lists.example/spam --trusted-key ed25519:1f0c... \
        --shards /var/lib/calldir/shards/shards.json
        """ + "\n\n" + FeedHelp.exitStatus
    )
    @OptionGroup var options: UpdateOptions
    func run() throws {
        if options.index == nil && options.shards == nil {
            SiblingExecutable.exec("calldir-serve", arguments: [FeedCommandName.update.rawValue]
                                   + Array(CommandLine.arguments.dropFirst(2)) + ["--index", DefaultIndex.path])
            throw ExitCode(.error)
        }
        FeedExec.run(.update, skipping: 2)
    }
}
