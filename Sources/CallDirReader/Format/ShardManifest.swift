/// `shards.json` (FORMAT.md, "Shard manifest"): one list split over several Call Directory
/// extensions, each shard a normal index. It names each shard's file, the extension that loads
/// it, the numbers it covers and the kinds it holds, with its size and checksum; the manifest's
/// own CRC-32 closes it. Written by `calldir shard`, read by the app and `lookup --shards`.
public struct ShardManifest: Equatable, Sendable {
    /// How the list was split.
    public enum Rule: String, Sendable {
        /// Blocking in one shard, identification in another.
        case kind
        /// Contiguous number intervals, each under a number of device entries.
        case size
        /// One shard per category, each compiled from its own inputs (they may share numbers).
        case category
    }

    /// One shard: an index file and the extension that loads it.
    public struct Shard: Equatable, Sendable {
        /// The index file, relative to the manifest's folder.
        public var file: String
        /// The Call Directory extension's bundle identifier.
        public var extensionIdentifier: String
        /// The numbers it covers (every number of a kind shard).
        public var numbers: NumberRange
        /// Whether its extension loads the blocking entries of its numbers.
        public var blocking: Bool
        /// Whether its extension loads the identification entries of its numbers.
        public var identification: Bool
        /// Entries CallKit stores for it (exact numbers and range numbers).
        public var deviceEntries: Int64
        /// The index file's size in bytes.
        public var bytes: Int
        /// The index file's checksum (its trailer's CRC-32).
        public var checksum: UInt32

        /// A shard as the manifest lists it.
        public init(file: String, extensionIdentifier: String, numbers: NumberRange, blocking: Bool, identification: Bool,
                    deviceEntries: Int64, bytes: Int, checksum: UInt32) {
            self.file = file
            self.extensionIdentifier = extensionIdentifier
            self.numbers = numbers
            self.blocking = blocking
            self.identification = identification
            self.deviceEntries = deviceEntries
            self.bytes = bytes
            self.checksum = checksum
        }

        /// Whether `index` is this shard's file: its checksum, size and entries as named.
        public func names(_ index: CallDirIndex) -> Bool {
            index.checksum == checksum && index.file.bytes.count == bytes && index.metadata.deviceEntries == deviceEntries
        }
    }

    /// The manifest format's version (FORMAT.md, "Shard manifest"); 2 added the rule `category`.
    public static let version = 2
    /// How the list was split.
    public var rule: Rule
    /// The checksum of the index the shards were cut from.
    public var sourceChecksum: UInt32
    /// The device entries of the index the shards were cut from: the shards' entries add up to it.
    public var sourceEntries: Int64
    /// The shards, in the order of their numbers (by size) or kinds (by kind).
    public var shards: [Shard]

    /// A manifest of these shards.
    public init(rule: Rule, sourceChecksum: UInt32, sourceEntries: Int64, shards: [Shard]) {
        self.rule = rule
        self.sourceChecksum = sourceChecksum
        self.sourceEntries = sourceEntries
        self.shards = shards
    }

    /// The source checksum of a manifest by category (no index was cut): the CRC-32 of the
    /// shards' checksums in order, 4 bytes each, little-endian.
    public static func categorySource(_ shards: [Shard]) -> UInt32 {
        Checksum.crc32(shards.flatMap { shard in (0..<4).map { UInt8(truncatingIfNeeded: shard.checksum >> (8 * $0)) } })
    }

    /// The file's bytes: the members in FORMAT.md's order, compact, then `"crc32"`, the CRC-32
    /// of every byte before `,"crc32"`.
    public var encoded: [UInt8] {
        let shardValues = shards.map { shard -> JSONValue in
            let kinds = [shard.blocking ? "block" : nil, shard.identification ? "identify" : nil].compactMap { $0 }
            return .object([("file", .string(shard.file)), ("extension", .string(shard.extensionIdentifier)),
                            ("first", .int(shard.numbers.first)), ("last", .int(shard.numbers.last)),
                            ("kinds", .array(kinds.map { .string($0) })), ("deviceEntries", .int(shard.deviceEntries)),
                            ("bytes", .int(Int64(shard.bytes))), ("checksum", .string(hex(shard.checksum)))])
        }
        let body: JSONValue = .object([("format", .string("calldir-shards")), ("version", .int(Int64(Self.version))),
                                       ("rule", .string(rule.rawValue)),
                                       ("source", .object([("checksum", .string(hex(sourceChecksum))), ("deviceEntries", .int(sourceEntries))])),
                                       ("shards", .array(shardValues))])
        var bytes = Array(body.rendered().utf8.dropLast())  // without its closing brace
        bytes += Array(",\"crc32\":\"\(hex(Checksum.crc32(bytes)))\"}\n".utf8)
        return bytes
    }

    /// Reads a manifest file; every departure from FORMAT.md is a `corruptIndex` error naming it.
    public init(path: String) throws {
        let file = try MappedFile(path: path)
        try self.init(bytes: file.bytes, path: path)
    }

    /// Reads a manifest's bytes (fetched from a feed), `path` naming them in errors; the same checks as `init(path:)`.
    package init(bytes: UnsafeRawBufferPointer, path: String) throws {
        func fail(_ why: String) -> CallDirError { CallDirError(.corruptIndex, "shard manifest: " + why, path: path) }
        let marker = Array(",\"crc32\":\"".utf8)
        guard bytes.count < 1 << 24, let at = Self.lastIndex(of: marker, in: bytes) else { throw fail("no crc32 member at its end") }
        let stated = ShardManifestReader.crc(String(decoding: bytes[(at + marker.count)...].prefix(8), as: UTF8.self))
        guard let stated, stated == Checksum.crc32(UnsafeRawBufferPointer(rebasing: bytes[..<at])) else {
            throw fail("its CRC-32 does not match its contents (edited or damaged): write it again with calldir shard")
        }
        self = try ShardManifestReader(path: path).manifest(bytes)
        guard encoded.elementsEqual(bytes) else { throw fail("not in the form calldir shard writes (FORMAT.md, \"Shard manifest\")") }
    }

    private static func lastIndex(of marker: [UInt8], in bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= marker.count else { return nil }
        for start in stride(from: bytes.count - marker.count, through: 0, by: -1)
            where bytes[start] == marker[0] && bytes[start..<(start + marker.count)].elementsEqual(marker) {
            return start
        }
        return nil
    }
}
