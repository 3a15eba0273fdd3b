import CallDirReader

/// Apple XML property lists as the iOS blocker Begone exports them, read as a stream:
/// `<plist><array><dict><key>number</key><string>…</string><key>title</key>…</dict>…`.
///
/// Per dict, the number field is the `number` value (else `pattern`, else `phone`), as a
/// `<string>` or `<integer>`; the label is `title` (else `label`, else `name`). Other keys are
/// skipped, including Begone's `category` and `addNational`: `addNational` asks Begone to also
/// block the national form of a number, which CallKit does not need, since its entries are
/// E.164 numbers already. A bare `<string>` or `<integer>` in the array is a number without
/// label. The row's line is the line of the `<dict>`. Binary plists (`bplist00`) are refused
/// with the command that converts them. Memory: one dict's wanted values.
package struct PlistListSource: StreamedListSource {
    package let origin: InputOrigin

    package init(origin: InputOrigin) { self.origin = origin }

    package func rows(from stream: ByteStream, _ body: (SourceRow) throws -> Void) throws {
        try PlistListParser(cursor: ByteCursor(source: stream)).parse(body)
    }

    static func binaryPlistError(_ name: String) -> CallDirError {
        CallDirError(.badInput, "binary plists are not supported; convert with `plutil -convert xml1 FILE` "
                     + "(or `plistutil -f xml`) and read the XML file", path: name)
    }
}

/// The plist > array > dict structure on top of `XMLScanner`.
final class PlistListParser {
    /// Keys whose values are kept: number candidates, then label candidates.
    private static let keys: [[UInt8]] = ["number", "pattern", "phone", "title", "label", "name"]
        .map { Array($0.utf8) }
    private static let labelSlots = 3..<6

    private let cursor: ByteCursor
    private let scanner: XMLScanner
    private var tag = XMLTag()
    private var storage: [UInt8] = []
    private var fields = [Range<Int>?](repeating: nil, count: 6)
    private var key: [UInt8] = []
    private var discard: [UInt8] = []

    init(cursor: ByteCursor) {
        self.cursor = cursor
        scanner = XMLScanner(cursor: cursor)
    }

    /// Over bytes in memory, which must outlive the parser (the fuzzers').
    convenience init(memory bytes: UnsafeRawBufferPointer, name: String) {
        self.init(cursor: ByteCursor(memory: bytes, name: name))
    }

    func parse(_ body: (SourceRow) throws -> Void) throws {
        try cursor.skipByteOrderMark()
        try cursor.skipWhitespace()
        if try cursor.peek() == 0x62, try cursor.consume("bplist") {
            throw PlistListSource.binaryPlistError(cursor.name)
        }
        try requireTag("<plist> or <array>")
        let wrapped = tag.is("plist") && !tag.isEnd
        if wrapped { try requireTag("<array>") }
        guard tag.is("array") && !tag.isEnd else {
            throw scanner.error("expected \(wrapped ? "" : "<plist> or ")<array> (the list must be an array of "
                                + "dicts) but found \(tag.display)", line: tag.line)
        }
        if !tag.isEmpty { try items(body) }
        if wrapped { try requireEnd("plist") }
        if try scanner.nextTag(&tag) {
            throw scanner.error("unexpected \(tag.display) after the end of the plist", line: tag.line)
        }
    }

    /// The elements of the top-level array, up to `</array>`.
    private func items(_ body: (SourceRow) throws -> Void) throws {
        while true {
            try requireTag("<dict> or </array>")
            let line = tag.line
            if tag.isEnd && tag.is("array") { return }
            guard !tag.isEnd else { throw scanner.error("unexpected \(tag.display) in the array", line: line) }
            storage.removeAll(keepingCapacity: true)
            if tag.is("dict") {
                for index in fields.indices { fields[index] = nil }
                if !tag.isEmpty { try dict(startLine: line) }
                try emit(line, body)
            } else if tag.is("string") || tag.is("integer") {
                try readValue(into: &storage)
                try storage.withUnsafeBytes { try body(SourceRow(line: line, number: $0, label: nil)) }
            } else {
                throw scanner.error("expected <dict> in the top-level array but found \(tag.display)", line: line)
            }
        }
    }

    /// Key/value pairs up to `</dict>`.
    private func dict(startLine: Int) throws {
        while true {
            guard try scanner.nextTag(&tag) else {
                throw scanner.error("the file ends inside the <dict> that begins here", line: startLine)
            }
            if tag.isEnd && tag.is("dict") { return }
            guard tag.is("key") && !tag.isEnd && !tag.isEmpty else {
                throw scanner.error("expected <key> or </dict> but found \(tag.display)", line: tag.line)
            }
            key.removeAll(keepingCapacity: true)
            try readValue(into: &key)
            try requireTag("a value after <key>")
            guard !tag.isEnd else {
                throw scanner.error("expected a value after <key> but found \(tag.display)", line: tag.line)
            }
            try value(for: Self.keys.firstIndex(of: key))
        }
    }

    /// The value element at `tag`: kept if it is a string or integer of a wanted key.
    private func value(for slot: Int?) throws {
        if tag.is("dict") || tag.is("array") {
            if !tag.isEmpty { try skipElement() }
        } else if let slot, tag.is("string") || tag.is("integer") {
            let start = storage.count
            try readValue(into: &storage)
            fields[slot] = start..<storage.count
        } else {
            discard.removeAll(keepingCapacity: true)
            try readValue(into: &discard)
        }
    }

    /// Text of the element at `tag` up to its end tag (nothing for `<x/>`).
    private func readValue(into out: inout [UInt8]) throws {
        if tag.isEmpty { return }
        let name = tag.name
        let line = tag.line
        try scanner.readText(into: &out)
        try requireTag("</\(String(decoding: name, as: UTF8.self))>")
        guard tag.isEnd && tag.name == name else {
            throw scanner.error("expected </\(String(decoding: name, as: UTF8.self))> for the element at line "
                                + "\(line) but found \(tag.display)", line: tag.line)
        }
    }

    private func skipElement() throws {
        let line = tag.line
        var depth = 1
        while depth > 0 {
            guard try scanner.nextTag(&tag) else {
                throw scanner.error("the file ends inside the element that begins here", line: line)
            }
            if tag.isEnd { depth -= 1 } else if !tag.isEmpty { depth += 1 }
        }
    }

    private func requireTag(_ what: String) throws {
        guard try scanner.nextTag(&tag) else { throw scanner.error("expected \(what) but found the end of the file") }
    }

    private func requireEnd(_ name: StaticString) throws {
        try requireTag("</\(name)>")
        guard tag.isEnd && tag.is(name) else {
            throw scanner.error("expected </\(name)> but found \(tag.display)", line: tag.line)
        }
    }

    private func emit(_ line: Int, _ body: (SourceRow) throws -> Void) throws {
        let number = fields[0] ?? fields[1] ?? fields[2] ?? 0..<0
        let label = Self.labelSlots.lazy.compactMap { self.fields[$0] }.first { !$0.isEmpty }
        try storage.withUnsafeBytes { bytes in
            try body(SourceRow(line: line, number: UnsafeRawBufferPointer(rebasing: bytes[number]),
                               label: label.map { UnsafeRawBufferPointer(rebasing: bytes[$0]) }))
        }
    }
}
