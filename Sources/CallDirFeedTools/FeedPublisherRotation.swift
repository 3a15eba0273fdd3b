import CallDirFeed
import CallDirReader

/// Key rotation on the publisher's side (FEED-PROTOCOL.md, "Key rotation"): the statement
/// `--rotate-from` writes, and the statements a failed rotation left, which no manifest names.
extension FeedPublisher {
    /// The `root` of the manifest in the folder now (1 when absent).
    static func currentManifestRoot(_ feed: String) throws -> Int64 {
        guard let bytes = try FeedFiles.read(feed + "/" + FeedManifest.fileName, maxBytes: FeedJSON.maxBytes) else { return 1 }
        return FeedManifest.rootVersion(unverified: bytes)
    }

    /// Removes the rotation statements (and signatures) past `version`.
    static func removeStatements(_ feed: String, after version: Int64) {
        for v in rootVersions(feed) where v > version {
            _ = Syscalls.unlink(feed + "/" + FeedRoot.path(version: v) + ".sig")
            _ = Syscalls.unlink(feed + "/" + FeedRoot.path(version: v))
        }
    }

    /// Writes the next rotation statement, `root/<version>.json` naming `new` from `serial` on,
    /// signed by `old` (which must be the feed's current key) and `new`, before any manifest
    /// signed by `new` exists.
    /// Returns the new version.
    static func rotate(feed: String, from old: FeedPrivateKey, to new: FeedPrivateKey, current: Int64, feedId: String,
                       serial: Int64) throws -> Int64 {
        try FeedFiles.makeFolder(feed + "/" + FeedRoot.folder)
        let currentPath = feed + "/" + FeedRoot.path(version: current)
        if current > 1, let bytes = try FeedFiles.read(currentPath, maxBytes: FeedJSON.maxBytes),
           case .array(let keys)? = try FeedJSON.parse(bytes, name: currentPath)["keys"], !keys.contains(.string(old.publicKey.text)) {
            throw FeedError(.usage, "--rotate-from is not the key that rotation statement \(current) names", path: currentPath)
        }
        let path = feed + "/" + FeedRoot.path(version: current + 1)
        let statement = FeedRoot(version: current + 1, keys: [new.publicKey], serial: serial).rendered(feed: feedId)
        try FeedFiles.publish(statement, to: path, role: "the rotation statement")
        try FeedFiles.publish(try FeedSignature.render(manifest: statement, keys: [old, new]), to: path + ".sig",
                              role: "the rotation statement's signature")
        return current + 1
    }

    /// The versions of the rotation statements in the folder.
    static func rootVersions(_ feed: String) -> [Int64] {
        Syscalls.folderEntries(feed + "/" + FeedRoot.folder).compactMap { name in
            name.hasSuffix(".json") ? Int64(name.dropLast(5)) : nil
        }
    }
}
