import CallDirReader

/// The feed's rules for reading its small files (manifest, installed state, rotation
/// statements) into the one `JSONValue` tree: bounded size and depth, integers only, no
/// member named twice, errors as `FeedError`s that name the file.
package enum FeedJSON {
    /// The largest feed file read (1 MiB).
    package static let maxBytes = 1 << 20
    static let rules = JSONValue.ReadRules(maxDepth: 16, integersOnly: true)

    /// Parses `bytes` whole; `name` locates errors ("manifest.json", a URL).
    package static func parse(_ bytes: [UInt8], name: String) throws -> JSONValue {
        guard bytes.count <= maxBytes else {
            throw FeedError(.manifest, "\(bytes.count) bytes is over the limit of \(maxBytes) for a feed file", path: name)
        }
        return try bytes.withUnsafeBytes { memory in
            let cursor = ByteCursor(memory: memory, name: name)
            do {
                return try JSONValue.parse(cursor, rules: rules)
            } catch let error as CallDirError {
                let at = cursor.memoryOffset.map { " (byte \($0))" } ?? ""
                let reason = error.message.hasPrefix("malformed JSON: ") ? error.message.dropFirst(16) : Substring(error.message)
                throw FeedError(.manifest, "malformed JSON at line \(error.line ?? cursor.line)\(at): \(reason)", path: name)
            }
        }
    }
}
