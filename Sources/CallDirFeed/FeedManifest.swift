import CallDirReader

/// The feed's manifest (FEED-PROTOCOL.md): what the feed currently publishes, signed.
/// Its bytes are what the signature covers, so a reader verifies the bytes first and parses
/// them after; the publisher renders them once and never re-renders a received manifest.
public struct FeedManifest: Sendable, Equatable {
    /// Format 2 names the feed (`feed`); format 1 (no feed id) is still read, and a follower
    /// that has pinned a feed refuses it.
    public static let formatVersion: Int64 = 2
    /// The format versions a follower reads.
    public static let supportedFormats: ClosedRange<Int64> = 1...2
    /// Fixed names in the feed folder: the same URL serves `update`, `serve --follow` and apps.
    public static let fileName = "manifest.json"
    /// The detached signature's file name.
    public static let signatureFileName = "manifest.json.sig"

    /// The full index a manifest names (FORMAT.md, "Update feed").
    public struct IndexEntry: Sendable, Equatable {
        /// Its path in the feed folder.
        public var path: String
        /// Its size in bytes.
        public var size: Int64
        /// Its SHA-256, lower-case hex.
        public var sha256: String
        /// Its checksum (the index trailer's CRC-32, 8 hex digits).
        public var crc32: String
        /// The entries CallKit will hold.
        public var deviceEntries: Int64
        /// An index entry.
        public init(path: String, size: Int64, sha256: String, crc32: String, deviceEntries: Int64) {
            self.path = path; self.size = size; self.sha256 = sha256; self.crc32 = crc32; self.deviceEntries = deviceEntries
        }
    }

    /// A delta a manifest names: from an older index (by SHA-256) to this manifest's.
    public struct DeltaEntry: Sendable, Equatable {
        /// The SHA-256 of the index it applies to.
        public var from: String
        /// The SHA-256 of the index it rebuilds.
        public var to: String
        /// Its path in the feed folder.
        public var path: String
        /// Its size in bytes.
        public var size: Int64
        /// Its SHA-256, lower-case hex.
        public var sha256: String
        /// A delta entry.
        public init(from: String, to: String, path: String, size: Int64, sha256: String) {
            self.from = from; self.to = to; self.path = path; self.size = size; self.sha256 = sha256
        }
    }

    /// The feed's identifier, chosen at its first publication and signed with every manifest:
    /// a follower pins it and refuses another feed's manifest (mix-and-match). Nil only in a
    /// format-1 manifest.
    public var feed: String?
    /// The publication's number, increasing (rollback is refused).
    public var serial: Int64
    /// When it was published (seconds since 1970).
    public var created: Int64
    /// When it expires (seconds since 1970): past it a follower refuses it (freeze).
    public var expires: Int64
    /// The key id of the key that signed it.
    public var keyId: String
    /// The full index.
    public var index: IndexEntry
    /// Deltas from recent indexes to this one.
    public var deltas: [DeltaEntry]
    /// The key rotation version whose keys sign this manifest (1: the followers' own keys).
    public var root: Int64 = 1

    /// A manifest.
    public init(feed: String?, serial: Int64, created: Int64, expires: Int64, keyId: String, index: IndexEntry,
                deltas: [DeltaEntry]) {
        self.feed = feed
        self.serial = serial; self.created = created; self.expires = expires
        self.keyId = keyId; self.index = index; self.deltas = deltas
    }

    /// The `root` member of manifest bytes not yet verified (1 when absent or unreadable): how
    /// far a follower walks the rotation statements before it verifies them and the manifest.
    public static func rootVersion(unverified bytes: [UInt8]) -> Int64 {
        guard let json = try? FeedJSON.parse(bytes, name: fileName), case .int(let v)? = json["root"], v >= 1 else { return 1 }
        return v
    }

    /// A feed id: 1 to 64 of A-Z a-z 0-9 . _ - (the publisher picks 32 random hex digits).
    public static func isValidFeedId(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count) && text.utf8.allSatisfy {
            (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || [0x2E, 0x5F, 0x2D].contains($0)
        }
    }

    /// The exact bytes published (and signed): pretty JSON, members in a fixed order, a final newline.
    /// Without a feed id, the format-1 form (what older publishers wrote; tests replay it).
    public func rendered() -> [UInt8] {
        let head: [(String, JSONValue)] = feed.map { [("format", .int(FeedManifest.formatVersion)), ("feed", .string($0))] }
            ?? [("format", .int(1))]
        let json = JSONValue.object(head + [
            ("serial", .int(serial)),
            ("created", .string(FeedText.timestamp(created))),
            ("expires", .string(FeedText.timestamp(expires))),
            ("keyId", .string(keyId)),
        ] + (root > 1 ? [("root", JSONValue.int(root))] : []) + [
            ("index", .object([
                ("path", .string(index.path)), ("size", .int(index.size)), ("sha256", .string(index.sha256)),
                ("crc32", .string(index.crc32)), ("deviceEntries", .int(index.deviceEntries)),
            ])),
            ("deltas", .array(deltas.map { d in
                .object([("from", .string(d.from)), ("to", .string(d.to)), ("path", .string(d.path)),
                         ("size", .int(d.size)), ("sha256", .string(d.sha256))])
            })),
        ])
        return Array((json.rendered(pretty: true) + "\n").utf8)
    }

    /// Parses (already verified) manifest bytes; every field is checked for type and form.
    public static func parse(_ bytes: [UInt8], name: String = FeedManifest.fileName) throws -> FeedManifest {
        let json = try FeedJSON.parse(bytes, name: name)
        func fail(_ what: String) -> FeedError { FeedError(.manifest, what, path: name) }
        func int(_ o: JSONValue, _ key: String, _ where_: String, min: Int64 = 0) throws -> Int64 {
            guard case .int(let v)? = o[key], v >= min else { throw fail("\(where_)\"\(key)\" must be an integer >= \(min)") }
            return v
        }
        func string(_ o: JSONValue, _ key: String, _ where_: String) throws -> String {
            guard case .string(let v)? = o[key] else { throw fail("\(where_)\"\(key)\" must be a string") }
            return v
        }
        func digest(_ o: JSONValue, _ key: String, _ where_: String) throws -> String {
            let v = try string(o, key, where_)
            guard FeedText.bytes(hex: v, count: 32) != nil else { throw fail("\(where_)\"\(key)\" must be 64 lower-case hex digits") }
            return v
        }
        func path(_ o: JSONValue, _ where_: String) throws -> String {
            let v = try string(o, "path", where_)
            // Relative to the feed folder, one or two plain components: never "..", never absolute.
            let parts = v.split(separator: "/", omittingEmptySubsequences: false)
            guard !v.isEmpty, parts.count <= 2, parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }),
                  v.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x5C && $0 != 0x3F && $0 != 0x23 && $0 != 0x25 }) else {
                throw fail("\(where_)\"path\" \"\(v)\" is not a plain relative path inside the feed folder")
            }
            return v
        }
        guard case .object = json else { throw fail("the manifest must be a JSON object") }
        let format = try int(json, "format", "")
        guard supportedFormats.contains(format) else {
            throw fail("manifest format \(format) is not supported (this calldir reads formats \(supportedFormats.lowerBound) "
                       + "to \(supportedFormats.upperBound)); update calldir")
        }
        var feed: String?
        if format >= 2 {
            let id = try string(json, "feed", "")
            guard isValidFeedId(id) else { throw fail("\"feed\" must be 1 to 64 letters, digits, '.', '_' or '-'") }
            feed = id
        }
        let serial = try int(json, "serial", "", min: 1)
        guard let created = FeedText.seconds(timestamp: try string(json, "created", "")),
              let expires = FeedText.seconds(timestamp: try string(json, "expires", "")) else {
            throw fail("\"created\" and \"expires\" must be UTC times like 2026-11-26T12:00:00Z")
        }
        let keyId = try string(json, "keyId", "")
        guard let idx = json["index"], case .object = idx else { throw fail("\"index\" must be an object") }
        let crc = try string(idx, "crc32", "index.")
        guard FeedText.bytes(hex: crc, count: 4) != nil else { throw fail("index.\"crc32\" must be 8 lower-case hex digits") }
        let index = IndexEntry(path: try path(idx, "index."), size: try int(idx, "size", "index.", min: 1),
                               sha256: try digest(idx, "sha256", "index."), crc32: crc,
                               deviceEntries: try int(idx, "deviceEntries", "index."))
        guard case .array(let items)? = json["deltas"] else { throw fail("\"deltas\" must be an array") }
        var deltas: [DeltaEntry] = []
        for (i, item) in items.enumerated() {
            let w = "deltas[\(i)]."
            guard case .object = item else { throw fail("deltas[\(i)] must be an object") }
            let d = DeltaEntry(from: try digest(item, "from", w), to: try digest(item, "to", w), path: try path(item, w),
                               size: try int(item, "size", w, min: 1), sha256: try digest(item, "sha256", w))
            guard d.to == index.sha256 else { throw fail("\(w)\"to\" is not the current index's sha256") }
            deltas.append(d)
        }
        var manifest = FeedManifest(feed: feed, serial: serial, created: created, expires: expires, keyId: keyId, index: index,
                                    deltas: deltas)
        if json["root"] != nil { manifest.root = try int(json, "root", "", min: 1) }
        return manifest
    }
}
