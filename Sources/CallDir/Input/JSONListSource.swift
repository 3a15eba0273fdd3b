import CallDirReader
/// JSON lists in the Saracroche style, read as a stream: a top-level array of objects, or
/// Saracroche's object form `{"version": ..., "name": ..., "patterns": [ ...objects... ]}`
/// (other top-level keys are skipped).
///
/// Per object, the number field is `pattern` if present, else `start` and `end` joined as
/// `START-END` (a range the normaliser reads), else `number`, else `phone`; an object with
/// none of them gives an empty number field (rejected later with its line). The label is the
/// first present of `label`, `name`, `operator_name`, `title`. Values may be strings or
/// numbers (kept as written); other keys and values of other types are skipped, nested ones
/// included. A bare string or number in the array is a number without label. The row's line is
/// the line of the object's `{`. Memory: one object's wanted values.
///
/// An object's `action` (`block` or `identify`, any case) says which kind it belongs to: a
/// source read for one kind yields the objects of that kind and those without an action, and
/// skips the others; `actions` nil (allowlists) ignores it. Another action is an error.
package struct JSONListSource: EntrySource {
    package let name: String
    private let origin: InputOrigin
    /// The kind whose rows are read, and whether objects without an action count as it.
    let actions: (kind: EntryKind, takesUnmarked: Bool)?

    /// Opens the JSON list at `path` (`-` is standard input; gzip is decompressed).
    package init(path: String) throws {
        self.init(origin: try InputOrigin(path: path))
    }

    init(origin: InputOrigin, actions: (kind: EntryKind, takesUnmarked: Bool)? = nil) {
        self.origin = origin
        self.name = origin.name
        self.actions = actions
    }

    package func forEachRow(_ body: (SourceRow) throws -> Void) throws {
        let stream = try origin.openStream()
        defer { stream.close() }
        try JSONListParser(cursor: ByteCursor(source: stream), actions: actions).parse(body)
    }
}

/// The array-of-objects structure on top of `JSONScanner`.
final class JSONListParser {
    /// Keys whose values are kept, in the order of `Field`.
    private static let keys: [[UInt8]] = ["pattern", "start", "end", "number", "phone",
                                          "label", "name", "operator_name", "title", "action"].map { Array($0.utf8) }
    private enum Field: Int { case pattern, start, end, number, phone, label, name, operatorName, title, action }
    private static let labelFields: [Field] = [.label, .name, .operatorName, .title]

    private let cursor: ByteCursor
    private let scanner: JSONScanner
    /// The current object's kept values, back to back, and where each field's value is.
    private var storage: [UInt8] = []
    private var fields = [Range<Int>?](repeating: nil, count: 10)
    private var key: [UInt8] = []
    private let actions: (kind: EntryKind, takesUnmarked: Bool)?

    init(cursor: ByteCursor, actions: (kind: EntryKind, takesUnmarked: Bool)? = nil) {
        self.cursor = cursor
        self.actions = actions
        scanner = JSONScanner(cursor: cursor)
    }

    /// Over bytes in memory, which must outlive the parser (the fuzzers').
    convenience init(memory bytes: UnsafeRawBufferPointer, name: String) {
        self.init(cursor: ByteCursor(memory: bytes, name: name))
    }

    func parse(_ body: (SourceRow) throws -> Void) throws {
        try cursor.skipByteOrderMark()
        try cursor.skipWhitespace()
        let isObject = try cursor.peek() == 0x7B
        if isObject { try objectForm(body) } else { try array(body) }
        try cursor.skipWhitespace()
        if let extra = try cursor.peek() {
            throw scanner.error("unexpected \(describeFound(extra)) after the end of the top-level \(isObject ? "object" : "array")")
        }
    }

    /// `{"version": ..., "patterns": [...]}`: the `patterns` array, other keys skipped.
    private func objectForm(_ body: (SourceRow) throws -> Void) throws {
        _ = try cursor.next()
        var sawPatterns = false
        try cursor.skipWhitespace()
        if try cursor.peek() == 0x7D { _ = try cursor.next() } else {
            while true {
                try readKey()
                if key.elementsEqual("patterns".utf8) {
                    sawPatterns = true
                    try array(body)
                } else {
                    try scanner.skipValue(depth: 1)
                }
                try cursor.skipWhitespace()
                let next = try cursor.next()
                if next == 0x2C { continue }
                if next == 0x7D { break }
                throw scanner.error("expected ',' or '}' in the top-level object but found \(describeFound(next))")
            }
        }
        guard sawPatterns else {
            throw scanner.error("the top-level object has no \"patterns\" array (Saracroche lists are "
                                + "{\"name\": ..., \"patterns\": [{\"pattern\": ..., \"action\": ...}]})")
        }
    }

    private func array(_ body: (SourceRow) throws -> Void) throws {
        let first = try cursor.peek()
        guard first == 0x5B else {
            throw scanner.error("expected '[' (the list must be an array of objects) but found "
                                + describeFound(first))
        }
        _ = try cursor.next()
        try cursor.skipWhitespace()
        if try cursor.peek() == 0x5D {
            _ = try cursor.next()
        } else {
            try elements(body)
        }
    }

    private func elements(_ body: (SourceRow) throws -> Void) throws {
        while true {
            try cursor.skipWhitespace()
            try element(body)
            try cursor.skipWhitespace()
            let found = try cursor.next()
            if found == 0x2C { continue }
            if found == 0x5D { return }
            throw scanner.error("expected ',' or ']' after an array element but found \(describeFound(found))")
        }
    }

    /// One array element: an object, or a bare string or number.
    private func element(_ body: (SourceRow) throws -> Void) throws {
        let line = cursor.line
        storage.removeAll(keepingCapacity: true)
        switch try cursor.peek() {
        case 0x7B:
            try object()
            if try wanted(line) { try emit(line, body) }
        case 0x22:
            try scanner.readString(into: &storage)
            try storage.withUnsafeBytes { try body(SourceRow(line: line, number: $0, label: nil)) }
        case 0x2D, .some(0x30...0x39):
            try scanner.readNumber(into: &storage)
            try storage.withUnsafeBytes { try body(SourceRow(line: line, number: $0, label: nil)) }
        case let found:
            throw scanner.error("expected an object in the top-level array but found \(describeFound(found))")
        }
    }

    /// Reads one object (cursor on `{`), keeping the wanted fields.
    /// Reads `"key":` of an object member into `key`, with the white space around it.
    private func readKey() throws {
        try cursor.skipWhitespace()
        let found = try cursor.peek()
        guard found == 0x22 else { throw scanner.error("expected a string key but found \(describeFound(found))") }
        key.removeAll(keepingCapacity: true)
        try scanner.readString(into: &key)
        try cursor.skipWhitespace()
        try scanner.expect(0x3A, "':' after the key")
        try cursor.skipWhitespace()
    }

    private func object() throws {
        for index in fields.indices { fields[index] = nil }
        _ = try cursor.next()
        try cursor.skipWhitespace()
        if try cursor.peek() == 0x7D { _ = try cursor.next(); return }
        while true {
            try readKey()
            try value(for: Self.keys.firstIndex(of: key))
            try cursor.skipWhitespace()
            let next = try cursor.next()
            if next == 0x2C { continue }
            if next == 0x7D { return }
            throw scanner.error("expected ',' or '}' in an object but found \(describeFound(next))")
        }
    }

    /// Keeps a string or number value for a wanted field; skips anything else.
    private func value(for field: Int?) throws {
        guard let field else { return try scanner.skipValue(depth: 1) }
        let start = storage.count
        switch try cursor.peek() {
        case 0x22: try scanner.readString(into: &storage)
        case 0x2D, .some(0x30...0x39): try scanner.readNumber(into: &storage)
        default: return try scanner.skipValue(depth: 1)  // null, true, nested: not a value we use
        }
        fields[field] = start..<storage.count
    }

    /// Whether the object just read belongs to the kind being read (its `action`).
    private func wanted(_ line: Int) throws -> Bool {
        guard let actions else { return true }
        guard let range = fields[Field.action.rawValue] else { return actions.takesUnmarked }
        let action = String(decoding: storage[range], as: UTF8.self).lowercased()
        switch action {
        case "block": return actions.kind == .block
        case "identify": return actions.kind == .identify
        default:
            throw CallDirError(.badInput, "action '\(action)' is neither block nor identify", path: cursor.name, line: line)
        }
    }

    private func emit(_ line: Int, _ body: (SourceRow) throws -> Void) throws {
        let number: Range<Int>
        if let pattern = fields[Field.pattern.rawValue] {
            number = pattern
        } else if let start = fields[Field.start.rawValue], let end = fields[Field.end.rawValue] {
            let joined = storage.count
            storage.append(contentsOf: storage[start])
            storage.append(0x2D)
            storage.append(contentsOf: storage[end])
            number = joined..<storage.count
        } else {
            number = fields[Field.number.rawValue] ?? fields[Field.phone.rawValue] ?? 0..<0
        }
        let label = Self.labelFields.lazy.compactMap { self.fields[$0.rawValue] }.first { !$0.isEmpty }
        try storage.withUnsafeBytes { bytes in
            try body(SourceRow(line: line, number: UnsafeRawBufferPointer(rebasing: bytes[number]),
                               label: label.map { UnsafeRawBufferPointer(rebasing: bytes[$0]) }))
        }
    }
}
