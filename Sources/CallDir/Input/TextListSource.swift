import CallDirReader

/// How to read columns of a CSV list with a header line.
public struct TextListOptions: Sendable, Equatable {
    /// The header name of the number column. Nil: the first of `number`, `pattern`, `phone`,
    /// `phone_number`, `tel` that the header has. Names compare case-insensitively, trimmed,
    /// with spaces and dashes read as underscores (`Phone Number` is `phone_number`).
    public var numberColumn: String?
    /// The header name of the label column. Nil: the first of `label`, `name`, `title`,
    /// `caller`, or no label if the header has none of them.
    public var labelColumn: String?

    /// Columns by header name; nil picks the usual names.
    public init(numberColumn: String? = nil, labelColumn: String? = nil) {
        self.numberColumn = numberColumn
        self.labelColumn = labelColumn
    }
}

/// The default format: plain text, one entry per line, or CSV.
///
/// Per line: blank lines and lines whose first non-blank character is `#` are skipped
/// (patterns such as `33162######` start with a digit or `+`, so they are not comments).
/// A line with a TAB splits at the first TAB into number and label. Otherwise a line with a
/// comma or a double quote is CSV: the first field is the number, the second the label, more
/// fields are ignored. Any other line is one number without a label.
///
/// Header: if the first line that is not blank or a comment has no digit in its first field
/// (or contains a column name requested in `TextListOptions`), it names the columns, and every
/// later line is split by the header's delimiter (TAB if the header has one, else `;` if it has
/// one and no comma, else comma) and the columns chosen by `TextListOptions` are read. A list
/// without header whose first line has `;` and no comma is split at `;` throughout.
/// A label field that is present but empty is an empty label (`empty-label` for identification);
/// a line without the label field has no label (nil: `missing-label`).
package struct TextListSource: EntrySource {
    package let name: String
    package let options: TextListOptions
    private let origin: InputOrigin

    /// Opens the list at `path` (`-` is standard input; gzip is decompressed).
    package init(path: String, options: TextListOptions = .init()) throws {
        self.init(origin: try InputOrigin(path: path), options: options)
    }

    init(origin: InputOrigin, options: TextListOptions) {
        self.origin = origin
        self.name = origin.name
        self.options = options
    }

    package func forEachRow(_ body: (SourceRow) throws -> Void) throws {
        try withoutActuallyEscaping(body) { body in
            var sink = ClosureRowSink(body: body)
            try forEachRow(into: &sink)
        }
    }

    /// `forEachRow` for a caller whose per-row code should be compiled into the line loop
    /// (the compile's reading thread): no closure call per row.
    func forEachRow<Sink: RowSink>(into sink: inout Sink) throws {
        let stream = try origin.openStream()
        defer { stream.close() }
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: stream.buffers.maxLineLength + 1, alignment: 16)
        defer { scratch.deallocate() }
        // A local struct, not a class: its state is then checked for exclusive access at
        // compile time instead of at run time on every line (swift_beginAccess showed in profiles).
        var parser = TextListParser(name: name, options: options, scratch: scratch)
        try LineReader(stream: stream).forEachLine { line, lineNumber in
            try parser.handle(line, lineNumber, &sink)
        }
    }
}

/// Receives rows one by one (see `TextListSource.forEachRow(into:)`).
protocol RowSink {
    mutating func take(_ row: SourceRow) throws
}

private struct ClosureRowSink: RowSink {
    let body: (SourceRow) throws -> Void
    func take(_ row: SourceRow) throws { try body(row) }
}

/// The per-line state machine of `TextListSource`.
struct TextListParser {
    enum Layout {
        case undecided
        /// No header: each line is plain, TAB-separated or CSV on its own.
        case perLine
        /// A header chose the columns.
        case columns(delimiter: UInt8, number: Int, label: Int?)
    }

    static let tab: UInt8 = 0x09
    static let comma: UInt8 = 0x2C
    static let semicolon: UInt8 = 0x3B

    /// The first content line's delimiter: TAB if it has one; `;` if it has one and no comma
    /// (Excel's CSV where the decimal mark is a comma); else comma.
    static func delimiter(of line: UnsafeRawBufferPointer) -> UInt8 {
        if line.contains(tab) { return tab }
        return line.contains(semicolon) && !line.contains(comma) ? semicolon : comma
    }

    let name: String
    let options: TextListOptions
    private(set) var layout = Layout.undecided
    /// Where quoted CSV fields are unescaped; as long as the longest line.
    private let scratch: UnsafeMutableRawBufferPointer

    init(name: String, options: TextListOptions, scratch: UnsafeMutableRawBufferPointer) {
        self.name = name
        self.options = options
        self.scratch = scratch
    }

    @inline(__always)  // into the line loop: the uncommon layouts are out of line
    mutating func handle<Sink: RowSink>(_ line: UnsafeRawBufferPointer, _ lineNumber: Int, _ sink: inout Sink) throws {
        guard let lead = line.first else { return }  // blank
        if lead == 0x20 || lead == Self.tab || lead == 0x23 {
            var first = 0
            while first < line.count && (line[first] == 0x20 || line[first] == Self.tab) { first += 1 }
            if first == line.count || line[first] == 0x23 { return }  // blank or `#` comment
        }
        switch layout {
        case .perLine:
            try perLine(line, lineNumber, &sink)
        case let .columns(delimiter, number, label):
            try columns(line, lineNumber, delimiter: delimiter, number: number, label: label, &sink)
        case .undecided:
            try firstLine(line, lineNumber, &sink)
        }
    }

    @inline(never)
    private mutating func firstLine<Sink: RowSink>(_ line: UnsafeRawBufferPointer, _ lineNumber: Int, _ sink: inout Sink) throws {
        if try decideLayout(line, lineNumber) { return }  // the line was a header
        try handle(line, lineNumber, &sink)
    }

    /// A line of a list without header: TAB split, CSV, or one plain field.
    @inline(__always)
    private mutating func perLine<Sink: RowSink>(_ line: UnsafeRawBufferPointer, _ lineNumber: Int, _ sink: inout Sink) throws {
        let (tab, csv) = ByteSearch.separators(in: line)
        if let split = tab {
            let label = UnsafeRawBufferPointer(rebasing: line[(split + 1)...])
            try sink.take(SourceRow(line: lineNumber, number: UnsafeRawBufferPointer(rebasing: line[..<split]), label: label))
        } else if csv {
            try columns(line, lineNumber, delimiter: Self.comma, number: 0, label: 1, &sink)
        } else {
            try sink.take(SourceRow(line: lineNumber, number: line, label: nil))
        }
    }

    /// Reads the number and label columns of one CSV (or TSV) line. Kept out of line so the
    /// plain-line path stays small.
    @inline(never)
    private mutating func columns<Sink: RowSink>(
        _ line: UnsafeRawBufferPointer, _ lineNumber: Int, delimiter: UInt8, number numberIndex: Int,
        label labelIndex: Int?, _ sink: inout Sink
    ) throws {
        var number = UnsafeRawBufferPointer(start: nil, count: 0)
        var label: UnsafeRawBufferPointer?
        let last = max(numberIndex, labelIndex ?? 0)
        let outcome = CSVLine.forEachField(in: line, delimiter: delimiter, scratch: scratch) { index, field in
            if index == numberIndex { number = field }
            if index == labelIndex { label = field }
            return index < last
        }
        if case .unterminatedQuote = outcome { throw multiLine(lineNumber) }
        try sink.take(SourceRow(line: lineNumber, number: number, label: label))
    }

    /// Looks at the first content line: a header sets up `.columns` and returns true.
    @inline(never)
    private mutating func decideLayout(_ line: UnsafeRawBufferPointer, _ lineNumber: Int) throws -> Bool {
        let delimiter = Self.delimiter(of: line)
        var names: [String] = []
        var firstHasDigit = false
        let outcome = CSVLine.forEachField(in: line, delimiter: delimiter, scratch: scratch) { index, field in
            if index == 0 { firstHasDigit = field.contains { $0 >= 0x30 && $0 <= 0x39 } }
            names.append(String(decoding: field, as: UTF8.self))
            return true
        }
        if case .unterminatedQuote = outcome { throw multiLine(lineNumber) }
        let requested = [options.numberColumn, options.labelColumn].compactMap { $0 }
        // A requested column name also marks a header whose first name has a digit (`phone1`).
        let namesRequested = requested.contains { names.map(Self.normalize).contains(Self.normalize($0)) }
        if firstHasDigit && !namesRequested {
            if let column = requested.first {
                throw CallDirError(.badInput, "column '\(column)' was requested by name, but the list has no "
                                   + "header line naming it (the first line starts with a number); add a "
                                   + "header or do not select columns", path: name, line: lineNumber)
            }
            // Semicolons are decided here, once: Excel's CSV in French, German and Swiss
            // locales. The per-line test stays TAB and comma only (the hot path).
            layout = delimiter == Self.semicolon ? .columns(delimiter: delimiter, number: 0, label: 1) : .perLine
            return false
        }
        let number = try chooseColumn(names, requested: options.numberColumn,
                                      defaults: ["number", "pattern", "phone", "phone_number", "tel"],
                                      role: "number", lineNumber: lineNumber)
        let label = try chooseColumn(names, requested: options.labelColumn,
                                     defaults: ["label", "name", "title", "caller"],
                                     role: "label", lineNumber: lineNumber)
        guard let number else {
            throw CallDirError(.badInput, "the header line has no number column (columns: \(listed(names))); "
                               + "name the column number, pattern, phone, phone_number or tel, or select "
                               + "it with --number-column NAME", path: name, line: lineNumber)
        }
        layout = .columns(delimiter: delimiter, number: number, label: label)
        return true
    }

    /// The index of the requested column, or of the first default name present.
    private func chooseColumn(
        _ names: [String], requested: String?, defaults: [String], role: String, lineNumber: Int
    ) throws -> Int? {
        let normalized = names.map(Self.normalize)
        if let requested {
            if let index = normalized.firstIndex(of: Self.normalize(requested)) { return index }
            throw CallDirError(.badInput, "the header line has no \(role) column '\(requested)' (columns: "
                               + "\(listed(names))); give --\(role)-column one of these names", path: name, line: lineNumber)
        }
        for candidate in defaults {
            if let index = normalized.firstIndex(of: candidate) { return index }
        }
        return nil
    }

    /// Trimmed, ASCII-lowercased, with spaces and dashes as underscores.
    static func normalize(_ column: String) -> String {
        let trimmed = column.utf8.drop { $0 == 0x20 || $0 == tab }.reversed().drop { $0 == 0x20 || $0 == tab }
        let bytes = trimmed.reversed().map { byte -> UInt8 in
            if byte >= 0x41 && byte <= 0x5A { return byte + 0x20 }
            if byte == 0x20 || byte == 0x2D { return 0x5F }
            return byte
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func listed(_ names: [String]) -> String {
        names.map { "'\($0)'" }.joined(separator: ", ")
    }

    private func multiLine(_ lineNumber: Int) -> CallDirError {
        CallDirError(.badInput, "multi-line CSV fields are not supported: a quoted field is not closed on "
                     + "this line; put each entry on one line", path: name, line: lineNumber)
    }
}
