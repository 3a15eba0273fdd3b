import CallDirReader

/// The keys a follower trusts, as TUF's root (FEED-PROTOCOL.md, "Key rotation"): version 1 is the
/// `--trusted-key` set a follower is configured with; each later version is a rotation
/// statement in the feed folder, `root/<version>.json` with `root/<version>.json.sig`, signed
/// by a key of the previous version and by a key it names. A follower walks the versions in
/// order before each manifest, so it moves to new keys without a reinstall, and stops trusting
/// the old ones (a leaked key is revoked by rotating away from it).
public struct FeedRoot: Sendable, Equatable {
    /// The feed folder's subfolder of root versions.
    public static let folder = "root"
    /// Versions walked in one check at most (a hostile mirror cannot keep a follower walking).
    public static let maxStepsPerCheck = 64

    /// The root version (1: the keys given as `--trusted-key`).
    public var version: Int64
    /// The keys trusted from this version on.
    public var keys: [FeedPublicKey]
    /// The first manifest serial signed by these keys (0 for version 1): adopting a version
    /// lowers the rollback floor to just below it, so a serial pushed up with a leaked key
    /// does not lock out the honest publisher.
    public var serial: Int64

    /// A root version.
    public init(version: Int64, keys: [FeedPublicKey], serial: Int64) {
        self.version = version; self.keys = keys; self.serial = serial
    }

    /// Where root `version` is in the feed folder.
    public static func path(version: Int64) -> String { "\(folder)/\(version).json" }

    /// A rotation statement's bytes (what both keys sign).
    public func rendered(feed: String?) -> [UInt8] {
        let json = JSONValue.object([
            ("format", .int(1)), ("feed", feed.map { JSONValue.string($0) } ?? .null), ("version", .int(version)),
            ("keys", .array(keys.map { .string($0.text) })), ("serial", .int(serial)),
        ])
        return Array((json.rendered(pretty: true) + "\n").utf8)
    }

    /// The next version, from its statement and signature: it must be signed by a key of this
    /// version and by one it names, follow this version, and name the pinned feed.
    public func next(statement: [UInt8], signature: [UInt8], feed: String?, name: String) throws -> FeedRoot {
        let json = try FeedJSON.parse(statement, name: name)
        guard case .int(1)? = json["format"], case .int(let version)? = json["version"], case .int(let serial)? = json["serial"],
              serial >= 1, case .array(let items)? = json["keys"], !items.isEmpty, items.count <= 8 else {
            throw FeedError(.manifest, "not a rotation statement of format 1 (format, feed, version, keys, serial)", path: name)
        }
        guard version == self.version + 1 else {
            throw FeedError(.manifest, "the statement is version \(version), not \(self.version + 1)", path: name)
        }
        if let feed, json["feed"] != .string(feed) {
            throw FeedError(.feed, "the rotation statement is not for feed \"\(feed)\"", path: name)
        }
        let keys = try items.map { item -> FeedPublicKey in
            guard case .string(let text) = item else { throw FeedError(.manifest, "\"keys\" holds strings", path: name) }
            return try FeedPublicKey(text: text)
        }
        let next = FeedRoot(version: version, keys: keys, serial: serial)
        // Signed by the old keys (the rotation is theirs to make) and the new (which exist and sign).
        _ = try FeedSignature.verifiedKeys(signature: signature, over: statement, trusted: self.keys, signatureName: name + ".sig")
        _ = try FeedSignature.verifiedKeys(signature: signature, over: statement, trusted: keys, signatureName: name + ".sig")
        return next
    }
}
