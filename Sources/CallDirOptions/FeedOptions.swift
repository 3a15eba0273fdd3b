import ArgumentParser

/// The signed update feed's commands (FEED-PROTOCOL.md): their options, parsed by
/// `calldir` for help and validation and again by `calldir-serve`, which runs them (it links
/// swift-crypto and the HTTP client; `calldir` links neither, so its start-up is unchanged).
package enum FeedCommandName: String, CaseIterable, Sendable {
    case keygen, publish, update
    /// `calldir verify --feed DIR`.
    case verifyFeed = "verify-feed"
}

package struct KeygenOptions: ParsableArguments {
    @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the private key (mode 0600; an existing file is not replaced).", valueName: "file"), completion: .file())
    package var output: String

    package init() {}
}

package struct PublishOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("The new index to publish (or --shards).", valueName: "new.calldir"), completion: .file())
    package var index: String?

    @Option(help: ArgumentHelp("Publish the shards `calldir shard` wrote instead of one index: each into its extension's channel, FEED/shards/<extension id>/ (a normal feed, its feed id the extension's identifier); a shard whose channel holds it already is left as it is.", valueName: "dir/shards.json"), completion: .file())
    package var shards: String?

    @Option(help: ArgumentHelp("The feed folder (created if missing); serve it as is over HTTP.", valueName: "dir"), completion: .directory)
    package var feed: String

    @Option(help: ArgumentHelp("The private key written by `calldir keygen`.", valueName: "file"), completion: .file())
    package var key: String

    @Option(help: "How many previously published indexes get a delta to the new one.")
    package var keep = 7

    @Option(name: .customLong("rotate-from"), help: ArgumentHelp("Rotate the feed's key: the private key the feed is signed with now; --key becomes its key through a rotation statement both sign, which followers walk (no reinstall, deltas kept).", valueName: "file"), completion: .file())
    package var rotateFrom: String?

    @Option(name: .customLong("feed-id"), help: ArgumentHelp("The feed's id, at its first publication (default: 32 random hex digits); it is signed into every manifest and followers refuse another feed's.", valueName: "id"))
    package var feedId: String?

    @Option(help: ArgumentHelp("How long the manifest stays valid: followers refuse it after that (a frozen feed). 90s, 30m, 12h, 7d; at most 366d.", valueName: "duration"))
    package var expires = "7d"

    @Option(help: ArgumentHelp("How long files named by a replaced manifest stay for followers still downloading them.", valueName: "duration"))
    package var grace = "1h"

    @Flag(help: "Print the result as JSON.")
    package var json = false

    package init() {}

    package func validate() throws {
        guard keep >= 0 else { throw ValidationError("--keep must be 0 or more.") }
        guard (index == nil) != (shards == nil) else {
            throw ValidationError("Give the index to publish, or --shards DIR/shards.json (what `calldir shard` wrote), not both.")
        }
        guard shards == nil || feedId == nil else {
            throw ValidationError("--feed-id goes with one index: with --shards, each channel's feed id is its extension's identifier.")
        }
    }
}

package struct TrustedKeyOptions: ParsableArguments {
    @Option(name: .customLong("trusted-key"), help: ArgumentHelp("A public key the feed may be signed with (ed25519:<64 hex>, as `calldir keygen` prints); repeat it while rotating keys.", valueName: "key"))
    package var trustedKeys: [String] = []

    @Option(name: .customLong("root-version"), help: ArgumentHelp("The key rotation the --trusted-key set belongs to: N for the keys root/N.json names (after N-1 rotations, as the feed's operator says); 1 is the feed's first keys.", valueName: "n"))
    package var rootVersion = 1

    package init() {}

    package func validate() throws {
        guard !trustedKeys.isEmpty else { throw ValidationError("Give at least one --trusted-key ed25519:<64 hex>.") }
        guard rootVersion >= 1 else { throw ValidationError("--root-version must be 1 or more.") }
    }
}

package struct UpdateOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The feed folder's URL (http:// or https://); manifest.json and manifest.json.sig are read from it.", valueName: "url"))
    package var feed: String

    @OptionGroup package var keys: TrustedKeyOptions

    @Option(help: ArgumentHelp("The index to bring up to date (default: $CALLDIR_INDEX or ~/.local/share/calldir/index.calldir); its serial is kept in <index>.feed-state.", valueName: "file"), completion: .file())
    package var index: String?

    @Option(help: ArgumentHelp("Bring a folder of shards up to date from a sharded feed (published with --shards) instead of one index: the feed's shards.json names them, each shard is updated from its extension's channel, then shards.json is written here once every shard matches it.", valueName: "dir/shards.json"), completion: .file())
    package var shards: String?

    @Option(name: .customLong("feed-id"), help: ArgumentHelp("The feed id to accept (what `calldir publish` prints); by default the first one seen is pinned in <index>.feed-state and any other refused.", valueName: "id"))
    package var feedId: String?

    @Option(help: ArgumentHelp("Seconds the whole update may take (manifest, signature and download, headers included).", valueName: "seconds"))
    package var timeout = 900

    @Option(name: .customLong("min-rate"), help: ArgumentHelp("The slowest download accepted, in bytes a second over each --stall-window; slower is aborted as stalled.", valueName: "bytes"))
    package var minRate = 1024

    @Option(name: .customLong("stall-window"), help: ArgumentHelp("The seconds over which --min-rate is measured (headers included).", valueName: "seconds"))
    package var stallWindow = 30

    @Flag(help: "Print the result as JSON.")
    package var json = false

    package init() {}

    package func validate() throws {
        if shards != nil {
            guard index == nil, feedId == nil else {
                throw ValidationError("--shards updates every shard of the folder, each pinned to its extension's channel: no --index or --feed-id.")
            }
        }
        if let feedId, !FeedIdText.isValid(feedId) {
            throw ValidationError("--feed-id must be 1 to 64 letters, digits, '.', '_' or '-' (what `calldir publish` prints).")
        }
        guard feed.hasPrefix("http://") || feed.hasPrefix("https://") else {
            throw ValidationError("--feed must be an http:// or https:// URL (for a folder on disk, use `calldir verify --feed`).")
        }
        guard (1...86_400).contains(timeout) else { throw ValidationError("--timeout must be 1 to 86400 seconds.") }
        guard (0...(1 << 30)).contains(minRate), (1...3600).contains(stallWindow) else {
            throw ValidationError("--min-rate must be 0 to 1073741824 and --stall-window 1 to 3600 seconds.")
        }
    }
}

package struct VerifyFeedOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The feed folder to check before uploading it.", valueName: "dir"), completion: .directory)
    package var feed: String

    @OptionGroup package var keys: TrustedKeyOptions

    @Flag(help: "Print the result as JSON.")
    package var json = false

    package init() {}
}

package enum FeedHelp {
    package static let exitStatus = """
    Exit status: 0 done (or already up to date); 64 bad usage or key; 65 the manifest or its \
    signature is malformed, altered or by an untrusted key; 66 rollback (a lower serial) or an \
    expired manifest, or another feed's; 67 a file's size, SHA-256 or base does not match the manifest, or it is \
    missing; 69 the server failed, timed out or stalled; 74 a file could not be written; 75 another \
    publish holds the feed folder; 2 another \
    error (an unreadable or damaged index to publish). Every \
    error names the check that failed (feed check 'signature' failed: ...).
    """
}

/// A feed id's form (FEED-PROTOCOL.md: 1 to 64 of A-Z a-z 0-9 . _ -), checked with the options
/// (this module links no feed code; `FeedManifest.isValidFeedId` is the same rule).
package enum FeedIdText {
    package static func isValid(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count) && text.utf8.allSatisfy {
            (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || [0x2E, 0x5F, 0x2D].contains($0)
        }
    }
}
