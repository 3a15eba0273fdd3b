import CallDirReader

/// What is installed, recorded beside the index (`<index>.feed-state`, FEED-PROTOCOL.md): the serial
/// and SHA-256 of the manifest whose index is installed (or being installed: the state is
/// written before the index is renamed into place), the key that signed it, the feed it names
/// and when it expires. It is the follower's memory against rollback (a manifest with a lower
/// serial is refused), mix-and-match (another feed is refused) and freeze (`expires`).
public struct FeedState: Sendable, Equatable {
    /// Format 2 adds `feed` and `expires`; format 1 is still read (both unknown).
    public static let formatVersion: Int64 = 2
    /// Appended to the index's path to name its state file.
    public static let suffix = ".feed-state"

    /// The pinned feed id (nil: a format-1 feed or state).
    public var feed: String?
    /// When the manifest recorded expires (nil in a format-1 state).
    public var expires: Int64?
    /// The trusted keys after the last rotation walked (nil: still `--trusted-key`, version 1).
    public var root: FeedRoot?
    /// The installed manifest's serial (the rollback floor).
    public var serial: Int64
    /// The SHA-256 of the manifest's index.
    public var sha256: String
    /// The key id that signed the manifest.
    public var keyId: String
    /// When the manifest was published.
    public var manifestCreated: Int64
    /// When it was installed here (seconds since 1970).
    public var installed: Int64

    /// A state.
    public init(feed: String?, expires: Int64?, serial: Int64, sha256: String, keyId: String, manifestCreated: Int64,
                installed: Int64) {
        self.feed = feed; self.expires = expires
        self.serial = serial; self.sha256 = sha256; self.keyId = keyId
        self.manifestCreated = manifestCreated; self.installed = installed
    }

    /// The state file of the index at `index`.
    public static func path(forIndex index: String) -> String { index + suffix }

    /// The state file's bytes (FORMAT.md, "Update feed").
    public func rendered() -> [UInt8] {
        let json = JSONValue.object([
            ("format", .int(FeedState.formatVersion)), ("feed", feed.map { JSONValue.string($0) } ?? .null), ("serial", .int(serial)),
            ("sha256", .string(sha256)), ("keyId", .string(keyId)), ("manifestCreated", .string(FeedText.timestamp(manifestCreated))),
            ("expires", expires.map { JSONValue.string(FeedText.timestamp($0)) } ?? .null),
            ("installed", .string(FeedText.timestamp(installed))),
            ("root", root.map { r in
                JSONValue.object([("version", .int(r.version)), ("keys", .array(r.keys.map { .string($0.text) })), ("serial", .int(r.serial))])
            } ?? .null),
        ])
        return Array((json.rendered(pretty: true) + "\n").utf8)
    }

    /// Reads a state file; `name` locates errors.
    public static func parse(_ bytes: [UInt8], name: String) throws -> FeedState {
        let json = try FeedJSON.parse(bytes, name: name)
        guard case .int(let format)? = json["format"], (1...formatVersion).contains(format),
              case .int(let serial)? = json["serial"], serial >= 1,
              case .string(let sha)? = json["sha256"], FeedText.bytes(hex: sha, count: 32) != nil,
              case .string(let keyId)? = json["keyId"],
              case .string(let created)? = json["manifestCreated"], let c = FeedText.seconds(timestamp: created),
              case .string(let installed)? = json["installed"], let i = FeedText.seconds(timestamp: installed) else {
            throw FeedError(.install, "not a feed state file of format 1 or 2 (format, serial, sha256, keyId, "
                            + "manifestCreated, installed); remove it only if you trust the installed index", path: name)
        }
        var feed: String?, expires: Int64?, root: FeedRoot?
        if format >= 2 {
            switch json["feed"] {
            case .string(let id)? where FeedManifest.isValidFeedId(id): feed = id
            case .null?: break
            default: throw FeedError(.install, "\"feed\" must be a feed id or null", path: name)
            }
            switch json["expires"] {
            case .string(let text)?:
                guard let e = FeedText.seconds(timestamp: text) else { throw FeedError(.install, "\"expires\" is not a UTC time", path: name) }
                expires = e
            case .null?: break
            default: throw FeedError(.install, "\"expires\" must be a UTC time or null", path: name)
            }
            root = try parseRoot(json["root"], name: name)
        }
        var state = FeedState(feed: feed, expires: expires, serial: serial, sha256: sha, keyId: keyId, manifestCreated: c, installed: i)
        state.root = root
        return state
    }

    private static func parseRoot(_ json: JSONValue?, name: String) throws -> FeedRoot? {
        guard let json, json != .null else { return nil }
        guard case .int(let version)? = json["version"], version >= 2, case .int(let serial)? = json["serial"],
              case .array(let items)? = json["keys"], !items.isEmpty else {
            throw FeedError(.install, "\"root\" must be null or an object with version, keys and serial", path: name)
        }
        let keys = try items.map { item -> FeedPublicKey in
            guard case .string(let text) = item else { throw FeedError(.install, "\"root\".keys holds strings", path: name) }
            return try FeedPublicKey(text: text)
        }
        return FeedRoot(version: version, keys: keys, serial: serial)
    }
}

/// The checks between a verified manifest and what is installed, and the choice of download.
public enum FeedPolicy {
    /// The most a serial may grow in one step: a leaked key cannot sign serial Int64.max and lock
    /// the honest publisher out for good (a key rotation lowers the floor again, `FeedRoot`).
    public static let maxSerialStep: Int64 = 1 << 20
    /// The longest validity a manifest may have (`expires` - `created`): the publisher's
    /// `--expires` bound, enforced by followers too, so a leaked key cannot sign a manifest
    /// that freezes them for years.
    public static let maxValidity: Int64 = 366 * 86400
    /// How far in the future a manifest's `created` may be, for clocks that disagree (a day).
    public static let maxClockSkew: Int64 = 86400

    /// What a follower downloads for a manifest.
    public enum Plan: Sendable, Equatable {
        /// The installed index is the manifest's (same SHA-256): nothing to download.
        case upToDate
        /// The delta from the installed index, smaller than the full index.
        case delta(FeedManifest.DeltaEntry)
        /// The full index (no delta from the installed one, or none smaller).
        case full(FeedManifest.IndexEntry)
    }

    /// Refuses an expired manifest (freeze) and a serial lower than the installed one, or
    /// equal with another index (rollback); then picks what to download.
    public static func plan(_ manifest: FeedManifest, state: FeedState?, installedSHA256: String?, now: Int64,
                            pinnedFeed: String? = nil, source: String = FeedManifest.fileName) throws -> Plan {
        if let pinned = pinnedFeed ?? state?.feed, manifest.feed != pinned {
            throw FeedError(.feed, "the manifest names feed \(manifest.feed.map { "\"\($0)\"" } ?? "none (format 1)"), not the "
                            + "followed feed \"\(pinned)\": another feed's manifest (mix-and-match); the installed index is kept",
                            path: source)
        }
        if let state, state.feed == nil, pinnedFeed == nil, let id = manifest.feed,
           manifest.index.sha256 != state.sha256, !manifest.deltas.contains(where: { $0.from == state.sha256 }) {
            // A state written before feed ids pins nothing: the first manifest with an id is
            // pinned only when it continues what is installed (its index, or a delta from it).
            throw FeedError(.feed, "the state file names no feed (written before feed ids), and this manifest of feed \"\(id)\" "
                            + "neither names the installed index nor offers a delta from it: perhaps another feed's manifest "
                            + "(mix-and-match); the installed index is kept. If this is the feed you follow, give --feed-id \(id) once",
                            path: source)
        }
        guard manifest.created <= now + maxClockSkew else {
            throw FeedError(.manifest, "the manifest (serial \(manifest.serial)) was created at \(FeedText.timestamp(manifest.created)), "
                            + "more than a day after now (\(FeedText.timestamp(now))): a manifest from the future is refused "
                            + "(check this machine's clock); the installed index is kept", path: source)
        }
        guard manifest.expires - manifest.created <= maxValidity else {
            throw FeedError(.manifest, "the manifest (serial \(manifest.serial)) is valid from \(FeedText.timestamp(manifest.created)) "
                            + "to \(FeedText.timestamp(manifest.expires)), longer than the \(maxValidity / 86400) days a publisher "
                            + "may sign; the installed index is kept", path: source)
        }
        guard now < manifest.expires else {
            throw FeedError(.expired, "the manifest (serial \(manifest.serial)) expired at \(FeedText.timestamp(manifest.expires)) "
                            + "(now \(FeedText.timestamp(now))): the feed is frozen or replayed; the installed index is kept",
                            path: source)
        }
        if let state {
            if manifest.serial - state.serial > maxSerialStep {
                throw FeedError(.rollback, "the manifest's serial \(manifest.serial) jumps more than \(maxSerialStep) past the "
                                + "installed serial \(state.serial) (a leaked key pushing serials out of the publisher's reach); "
                                + "the installed index is kept", path: source)
            }
            if manifest.serial < state.serial {
                throw FeedError(.rollback, "the manifest's serial \(manifest.serial) is lower than the installed serial "
                                + "\(state.serial): an older manifest replayed; the installed index is kept", path: source)
            }
            if manifest.serial == state.serial && manifest.index.sha256 != state.sha256 {
                throw FeedError(.rollback, "serial \(manifest.serial) is installed with index \(state.sha256.prefix(16))…, "
                                + "and this manifest gives the same serial to another index \(manifest.index.sha256.prefix(16))…",
                                path: source)
            }
        }
        if installedSHA256 == manifest.index.sha256 { return .upToDate }
        if let installedSHA256,
           let delta = manifest.deltas.filter({ $0.from == installedSHA256 && $0.size < manifest.index.size })
                                      .min(by: { $0.size < $1.size }) {
            return .delta(delta)
        }
        return .full(manifest.index)
    }
}
