/// Reads `shards.json` through the one JSON scanner, member by member as FORMAT.md lists
/// them; anything else is an error naming the member. (`ShardManifest(path:)` then checks the
/// file is byte for byte what `calldir shard` writes, so order and spacing are fixed too.)
struct ShardManifestReader {
    let scanner: JSONScanner
    let cursor: ByteCursor
    let path: String

    init(bytes: UnsafeRawBufferPointer, path: String) {
        cursor = ByteCursor(memory: bytes, name: path)
        scanner = JSONScanner(cursor: cursor)
        self.path = path
    }

    func fail(_ why: String) -> CallDirError { CallDirError(.corruptIndex, "shard manifest: " + why, path: path, line: cursor.line) }

    func manifest() throws -> ShardManifest {
        var manifest = ShardManifest(rule: .size, sourceChecksum: 0, sourceEntries: 0, shards: [])
        var seen = Set<String>()
        try object { key in
            seen.insert(key)
            switch key {
            case "format": guard try string() == "calldir-shards" else { throw fail("format is not calldir-shards") }
            case "version":
                guard try integer() == Int64(ShardManifest.version) else {
                    throw fail("version is not \(ShardManifest.version): written by another calldir")
                }
            case "rule": guard let rule = ShardManifest.Rule(rawValue: try string()) else { throw fail("unknown rule") }; manifest.rule = rule
            case "source":
                try object { member in
                    switch member {
                    case "checksum": manifest.sourceChecksum = try checksum()
                    case "deviceEntries": manifest.sourceEntries = try integer()
                    default: throw fail("unknown member source.\(member)")
                    }
                }
            case "shards": try array { manifest.shards.append(try shard()) }
            case "crc32": _ = try string()  // checked by ShardManifest over the bytes
            default: throw fail("unknown member \(key)")
            }
        }
        guard seen == ["format", "version", "rule", "source", "shards", "crc32"] else { throw fail("missing members") }
        return manifest
    }

    private func shard() throws -> ShardManifest.Shard {
        var shard = ShardManifest.Shard(file: "", extensionIdentifier: "", numbers: NumberRange(first: 0, last: 0), blocking: false,
                                        identification: false, deviceEntries: 0, bytes: 0, checksum: 0)
        try object { key in
            switch key {
            case "file": shard.file = try string()
            case "extension": shard.extensionIdentifier = try string()
            case "first": shard.numbers.first = try integer()
            case "last": shard.numbers.last = try integer()
            case "kinds":
                try array {
                    switch try string() {
                    case "block": shard.blocking = true
                    case "identify": shard.identification = true
                    case let other: throw fail("unknown kind \(other)")
                    }
                }
            case "deviceEntries": shard.deviceEntries = try integer()
            case "bytes": shard.bytes = Int(try integer())
            case "checksum": shard.checksum = try checksum()
            default: throw fail("unknown member shards[].\(key)")
            }
        }
        // A shard's file is a name in the manifest's folder: never a path out of it.
        guard !shard.file.isEmpty, !shard.file.contains("/"), shard.file != ".", shard.file != "..",
              shard.numbers.first <= shard.numbers.last, shard.deviceEntries >= 0, shard.bytes > 0 else {
            throw fail("shard \(shard.file.isEmpty ? "without a file" : shard.file) is out of range")
        }
        return shard
    }

    private func object(_ member: (String) throws -> Void) throws {
        try cursor.skipWhitespace()
        try scanner.expect(0x7B, "'{'")
        try elements(close: 0x7D) {
            var key: [UInt8] = []
            try scanner.readString(into: &key)
            try cursor.skipWhitespace()
            try scanner.expect(0x3A, "':'")
            try cursor.skipWhitespace()
            try member(String(decoding: key, as: UTF8.self))
        }
    }

    private func array(_ element: () throws -> Void) throws {
        try cursor.skipWhitespace()
        try scanner.expect(0x5B, "'['")
        try elements(close: 0x5D, element)
    }

    private func elements(close: UInt8, _ element: () throws -> Void) throws {
        try cursor.skipWhitespace()
        if try cursor.peek() == close { _ = try cursor.next(); return }
        while true {
            try cursor.skipWhitespace()
            try element()
            try cursor.skipWhitespace()
            guard let next = try cursor.next() else { throw fail("the file ends inside a value") }
            if next == close { return }
            guard next == 0x2C else { throw fail("expected ',' but found \(describeFound(next))") }
        }
    }

    private func string() throws -> String {
        var out: [UInt8] = []
        try scanner.readString(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private func integer() throws -> Int64 {
        var out: [UInt8] = []
        try scanner.readNumber(into: &out)
        guard let value = Int64(String(decoding: out, as: UTF8.self)) else { throw fail("\(String(decoding: out, as: UTF8.self)) is not an integer") }
        return value
    }

    private func checksum() throws -> UInt32 {
        guard let value = Self.hexValue(Array(try string().utf8)) else { throw fail("a checksum is not 8 hex digits") }
        return value
    }

    /// Eight lowercase hex digits as a CRC-32, or nil.
    static func hexValue(_ digits: [UInt8]) -> UInt32? {
        guard digits.count == 8 else { return nil }
        var value: UInt32 = 0
        for d in digits {
            switch d {
            case 0x30...0x39: value = value << 4 | UInt32(d - 0x30)
            case 0x61...0x66: value = value << 4 | UInt32(d - 0x61 + 10)
            default: return nil
            }
        }
        return value
    }
}
