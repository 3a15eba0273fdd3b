import CallDirReader

/// vCard files (versions 3.0 and 4.0), as CardDAV blocklists export them.
///
/// Each `TEL` of a card becomes one row (its line is the `TEL`'s line), emitted at
/// `END:VCARD`, so an `FN` after the `TEL` still labels it. The label is `FN`, or the first
/// component of `ORG` when `FN` is empty or absent; a card with neither gives no label.
/// Folded lines (a line starting with a space or TAB continues the previous one) are unfolded;
/// property names are case-insensitive and may carry a group (`item1.TEL`); parameters
/// (`TEL;TYPE=CELL,VOICE:`) are skipped; a `tel:` URI prefix is removed with its URI
/// parameters (`tel:+1-555-555-0100;ext=5` gives `+1-555-555-0100`). `FN` and `ORG` values are
/// unescaped (`\,` `\;` `\\` `\n`). Properties outside cards are ignored. vCard 2.1
/// quoted-printable values are not decoded. Memory: one card's numbers and labels.
package struct VCardSource: StreamedListSource {
    package let origin: InputOrigin

    package init(origin: InputOrigin) { self.origin = origin }

    package func rows(from stream: ByteStream, _ body: (SourceRow) throws -> Void) throws {
        let parser = VCardParser(name: name, buffers: stream.buffers)
        try LineReader(stream: stream).forEachLine { line, lineNumber in
            try parser.physicalLine(line, lineNumber, body)
        }
        try parser.finish(body)
    }
}

/// Unfolds lines and collects one card at a time.
final class VCardParser {
    let name: String
    /// The current logical (unfolded) line and the physical line it began on (0: none).
    private var logical: [UInt8] = []
    private var logicalLine = 0
    /// The line of the open card's BEGIN:VCARD, nil outside cards.
    private var cardStart: Int?
    private var numbers: [UInt8] = []
    private var tels: [(start: Int, count: Int, line: Int)] = []
    private var fullName: [UInt8]?
    private var organization: [UInt8]?

    /// Its `maxLineLength` bounds an unfolded property.
    private let buffers: ReadBuffers

    init(name: String, buffers: ReadBuffers = .standard) {
        self.name = name
        self.buffers = buffers
    }

    func physicalLine(_ line: UnsafeRawBufferPointer, _ lineNumber: Int, _ body: (SourceRow) throws -> Void) throws {
        if logicalLine != 0, let first = line.first, first == 0x20 || first == 0x09 {
            guard logical.count + line.count <= buffers.maxLineLength else {
                throw CallDirError(.badInput, "folded property longer than \(buffers.maxLineDescription); "
                                   + "is this really a vCard file?",
                                   path: name, line: logicalLine)
            }
            logical.append(contentsOf: line.dropFirst())
            return
        }
        try flush(body)
        logical.removeAll(keepingCapacity: true)
        logical.append(contentsOf: line)
        logicalLine = lineNumber
    }

    func finish(_ body: (SourceRow) throws -> Void) throws {
        try flush(body)
        if let cardStart {
            throw CallDirError(.badInput, "the file ends inside the card that begins here (no END:VCARD); "
                               + "the file may be truncated", path: name, line: cardStart)
        }
    }

    private func flush(_ body: (SourceRow) throws -> Void) throws {
        guard logicalLine != 0 else { return }
        let lineNumber = logicalLine
        logicalLine = 0
        try logical.withUnsafeBytes { try property($0, lineNumber, body) }
    }

    /// Handles one unfolded property line.
    private func property(_ line: UnsafeRawBufferPointer, _ lineNumber: Int, _ body: (SourceRow) throws -> Void) throws {
        guard let parts = VCardProperty(line) else { return }  // blank or not a property
        let value = UnsafeRawBufferPointer(rebasing: line[parts.value])
        if parts.is("BEGIN") && VCardProperty.equalsIgnoringCase(value, "VCARD") {
            if let cardStart {
                throw CallDirError(.badInput, "BEGIN:VCARD inside the card that began at line \(cardStart); "
                                   + "add the missing END:VCARD", path: name, line: lineNumber)
            }
            startCard(lineNumber)
        } else if parts.is("END") && VCardProperty.equalsIgnoringCase(value, "VCARD") {
            guard cardStart != nil else {
                throw CallDirError(.badInput, "END:VCARD without a BEGIN:VCARD; the file may be damaged",
                                   path: name, line: lineNumber)
            }
            try endCard(body)
        } else if cardStart == nil {
            return
        } else if parts.is("TEL") {
            let number = VCardProperty.stripTelScheme(value)
            tels.append((numbers.count, number.count, lineNumber))
            numbers.append(contentsOf: number)
        } else if parts.is("FN") && fullName == nil {
            var text: [UInt8] = []
            VCardProperty.unescape(value, firstComponentOnly: false, into: &text)
            fullName = text
        } else if parts.is("ORG") && organization == nil {
            var text: [UInt8] = []
            VCardProperty.unescape(value, firstComponentOnly: true, into: &text)
            organization = text
        }
    }

    private func startCard(_ lineNumber: Int) {
        cardStart = lineNumber
        numbers.removeAll(keepingCapacity: true)
        tels.removeAll(keepingCapacity: true)
        fullName = nil
        organization = nil
    }

    /// Emits one row per TEL of the finished card.
    private func endCard(_ body: (SourceRow) throws -> Void) throws {
        cardStart = nil
        let label = fullName?.isEmpty == false ? fullName : (organization?.isEmpty == false ? organization : nil)
        try numbers.withUnsafeBytes { numberBytes in
            func emit(_ labelBytes: UnsafeRawBufferPointer?) throws {
                for tel in tels {
                    let number = UnsafeRawBufferPointer(rebasing: numberBytes[tel.start..<(tel.start + tel.count)])
                    try body(SourceRow(line: tel.line, number: number, label: labelBytes))
                }
            }
            if let label { try label.withUnsafeBytes { try emit($0) } } else { try emit(nil) }
        }
    }
}
