import CallDirReader
import CallDirPatch

/// The formats `openSource` reads. SQLite databases are read with `SQLiteSource` instead.
public enum InputFormat: String, CaseIterable, Sendable {
    /// Decide from the first bytes (after gzip decompression); see `openSource`.
    case auto
    /// Plain text or CSV, one entry per line (`TextListSource`).
    case text
    /// vCard 3.0 / 4.0 (`VCardSource`).
    case vcard
    /// A JSON array of objects (`JSONListSource`).
    case json
    /// An Apple XML property list (`PlistListSource`).
    case plist
}

/// Opens the list at `path` (`-` is standard input) as a source of rows.
///
/// gzip input is decompressed whatever its name. With `.auto`, the format is decided from the
/// first non-whitespace bytes of the decompressed input, after a UTF-8 byte order mark:
/// `BEGIN:VCARD` (any case) is vCard; `[` or `{` is JSON (a top-level object is then reported
/// as an error by the JSON reader); `<?xml`, `<!DOCTYPE plist` or `<plist` is a plist;
/// `bplist` (a binary plist) is an error; anything else, including empty input, is text.
/// Whatever the format, input that is not text (a calldir index or delta, a SQLite database,
/// an image: a NUL byte or many control bytes among the first 4 KiB) is refused at once, with
/// one error that names what it looks like, so no row of it is ever echoed.
/// Only the first 4 KiB are examined; the bytes looked at are read again by the parser, so
/// detection works on stdin. The file is opened here: a missing file fails at once.
package func openSource(path: String, format: InputFormat = .auto,
                       options: TextListOptions = .init()) throws -> any EntrySource {
    try makeSource(origin: InputOrigin(path: path), format: format, options: options)
}

/// `openSource` for one kind: JSON lists yield only the objects whose `action` fits it
/// (see `JSONListSource`).
func openSource(path: String, format: InputFormat = .auto, options: TextListOptions = .init(),
                actions: (kind: EntryKind, takesUnmarked: Bool)?) throws -> any EntrySource {
    try makeSource(origin: InputOrigin(path: path), format: format, options: options, actions: actions)
}

/// Opens a source over an already open descriptor (a pipe, say), readable once; it is not closed.
func openSource(descriptor: Int32, name: String, format: InputFormat = .auto,
                options: TextListOptions = .init()) throws -> any EntrySource {
    try makeSource(origin: InputOrigin(descriptor: descriptor, name: name), format: format, options: options)
}

/// Opens a source over `bytes` in memory, read as a file named `name` with `buffers` (tests,
/// fuzzing: the same detection, gzip and parsers as `openSource(path:)`).
func openSource(bytes: [UInt8], name: String, format: InputFormat = .auto, options: TextListOptions = .init(),
                buffers: ReadBuffers = .standard) throws -> any EntrySource {
    try makeSource(origin: InputOrigin(bytes: bytes, name: name, buffers: buffers), format: format, options: options)
}

private func makeSource(origin: InputOrigin, format: InputFormat, options: TextListOptions,
                        actions: (kind: EntryKind, takesUnmarked: Bool)? = nil) throws -> any EntrySource {
    var chosen = format
    let head = try origin.peek(count: detectionWindow)
    if head.starts(with: "bplist".utf8) { throw PlistListSource.binaryPlistError(origin.name) }
    if let kind = binaryKind(head) {
        throw CallDirError(.badInput, "not a text list: \(kind); compile reads text, CSV, vCard, JSON or XML plist lists",
                           path: origin.name)
    }
    if format == .auto {
        chosen = try detectFormat(head, name: origin.name)
    }
    switch chosen {
    case .auto, .text: return TextListSource(origin: origin, options: options)
    case .vcard: return VCardSource(origin: origin)
    case .json: return JSONListSource(origin: origin, actions: actions)
    case .plist: return PlistListSource(origin: origin)
    }
}

/// What binary input looks like, or nil for text: the known magic numbers first, then any NUL
/// byte or more than one control byte in 16 (tab, CR, LF and form feed aside).
func binaryKind(_ head: UnsafeRawBufferPointer) -> String? {
    func starts(_ magic: [UInt8]) -> Bool { head.count >= magic.count && head.prefix(magic.count).elementsEqual(magic) }
    if starts(IndexFormat.magic) { return "looks like a calldir index (read it with inspect, lookup or export)" }
    if starts(DeltaFile.magic) { return "looks like a calldir delta (apply it with patch)" }
    if starts(Array("SQLite format 3\u{0}".utf8)) { return "looks like a SQLite database (read it with --block-sql or --identify-sql)" }
    if starts([0x89, 0x50, 0x4E, 0x47]) || starts([0xFF, 0xD8, 0xFF]) || starts(Array("GIF8".utf8)) { return "looks like an image" }
    if starts(Array("%PDF".utf8)) { return "looks like a PDF document" }
    if starts([0x50, 0x4B, 0x03, 0x04]) { return "looks like a zip archive (unzip it first)" }
    var controls = 0
    for byte in head {
        if byte == 0 {
            return (head.count >= 2 && (head[0] == 0xFF && head[1] == 0xFE || head[0] == 0xFE && head[1] == 0xFF))
                ? "looks like UTF-16 text (save it as UTF-8)" : "binary data"
        }
        if byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D && byte != 0x0C || byte == 0x7F { controls += 1 }
    }
    return controls * 16 > head.count ? "binary data" : nil
}

/// How many decompressed bytes format detection examines.
let detectionWindow = 4096

/// The format of input that starts with `prefix` (never `.auto`).
func detectFormat(_ prefix: UnsafeRawBufferPointer, name: String) throws -> InputFormat {
    var start = 0
    if prefix.count >= 3 && prefix[0] == 0xEF && prefix[1] == 0xBB && prefix[2] == 0xBF { start = 3 }
    while start < prefix.count, [0x20, 0x09, 0x0D, 0x0A].contains(prefix[start]) { start += 1 }
    let head = UnsafeRawBufferPointer(rebasing: prefix[start...])
    func starts(_ literal: StaticString) -> Bool {
        guard head.count >= literal.utf8CodeUnitCount else { return false }
        for index in 0..<literal.utf8CodeUnitCount {
            var byte = head[index]
            if byte >= 0x61 && byte <= 0x7A { byte -= 0x20 }  // compare upper-cased
            if byte != literal.utf8Start[index] { return false }
        }
        return true
    }
    if starts("BEGIN:VCARD") { return .vcard }
    if starts("[") || starts("{") { return .json }
    if starts("<?XML") || starts("<!DOCTYPE PLIST") || starts("<PLIST") { return .plist }
    if starts("BPLIST") { throw PlistListSource.binaryPlistError(name) }
    return .text
}
