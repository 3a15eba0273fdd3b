/// Reads `shards.json` through the one JSON tree (`JSONValue`), member by member as FORMAT.md
/// lists them; anything else is an error naming the member. (`ShardManifest(path:)` then checks
/// the file is byte for byte what `calldir shard` writes, so order and spacing are fixed too.)
struct ShardManifestReader {
    let path: String

    func fail(_ why: String) -> CallDirError { CallDirError(.corruptIndex, "shard manifest: " + why, path: path) }

    func manifest(_ bytes: UnsafeRawBufferPointer) throws -> ShardManifest {
        let root: JSONValue
        do {
            root = try JSONValue.parse(ByteCursor(memory: bytes, name: path), rules: .init(maxDepth: 8, integersOnly: true))
        } catch let error as CallDirError {
            throw CallDirError(.corruptIndex, "shard manifest: " + error.message, path: path, line: error.line)
        }
        guard case .object(let members) = root, Set(members.map(\.0)) == ["format", "version", "rule", "source", "shards", "crc32"] else {
            throw fail("members missing or unknown (FORMAT.md, \"Shard manifest\")")
        }
        guard try string(root["format"], "format") == "calldir-shards" else { throw fail("format is not calldir-shards") }
        guard try integer(root["version"], "version") == Int64(ShardManifest.version) else {
            throw fail("version is not \(ShardManifest.version): written by another calldir")
        }
        guard let rule = ShardManifest.Rule(rawValue: try string(root["rule"], "rule")) else { throw fail("unknown rule") }
        guard case .array(let shards)? = root["shards"] else { throw fail("shards is not an array") }
        return ShardManifest(rule: rule, sourceChecksum: try checksum(root["source"]?["checksum"], "source.checksum"),
                             sourceEntries: try integer(root["source"]?["deviceEntries"], "source.deviceEntries"),
                             shards: try shards.map(shard))
    }

    private func shard(_ value: JSONValue) throws -> ShardManifest.Shard {
        guard case .object(let members) = value,
              Set(members.map(\.0)) == ["file", "extension", "first", "last", "kinds", "deviceEntries", "bytes", "checksum"],
              case .array(let kinds)? = value["kinds"] else {
            throw fail("a shard's members are missing or unknown")
        }
        let kindNames = try kinds.map { try string($0, "kinds") }
        guard kindNames.allSatisfy({ $0 == "block" || $0 == "identify" }) else { throw fail("unknown kind in \(kindNames)") }
        let shard = ShardManifest.Shard(
            file: try string(value["file"], "file"), extensionIdentifier: try string(value["extension"], "extension"),
            numbers: NumberRange(first: try integer(value["first"], "first"), last: try integer(value["last"], "last")),
            blocking: kindNames.contains("block"), identification: kindNames.contains("identify"),
            deviceEntries: try integer(value["deviceEntries"], "deviceEntries"), bytes: Int(try integer(value["bytes"], "bytes")),
            checksum: try checksum(value["checksum"], "checksum"))
        // A shard's file is a name in the manifest's folder: never a path out of it; its
        // extension names a folder on the phone (`SharedFolder.shard`).
        guard !shard.file.isEmpty, !shard.file.contains("/"), shard.file != ".", shard.file != "..",
              SharedFolder.isBundleIdentifier(shard.extensionIdentifier),
              shard.numbers.first <= shard.numbers.last, shard.deviceEntries >= 0, shard.bytes > 0 else {
            throw fail("shard \(shard.file.isEmpty ? "without a file" : shard.file) is out of range")
        }
        return shard
    }

    private func string(_ value: JSONValue?, _ name: String) throws -> String {
        guard case .string(let text)? = value else { throw fail("\(name) is not a string") }
        return text
    }

    private func integer(_ value: JSONValue?, _ name: String) throws -> Int64 {
        guard case .int(let number)? = value else { throw fail("\(name) is not an integer") }
        return number
    }

    private func checksum(_ value: JSONValue?, _ name: String) throws -> UInt32 {
        guard let crc = Self.crc(try string(value, name)) else { throw fail("\(name) is not 8 hex digits") }
        return crc
    }

    /// Eight hex digits as a CRC-32, or nil.
    static func crc(_ digits: String) -> UInt32? { digits.utf8.count == 8 ? UInt32(digits, radix: 16) : nil }
}
