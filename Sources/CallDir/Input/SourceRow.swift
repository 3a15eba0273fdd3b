import CallDirReader

/// One row of an input list, before normalisation.
///
/// The buffers point into the reader's own memory and are valid only during the callback
/// that receives the row: copy what you keep. This keeps the hot path free of allocations.
public struct SourceRow {
    /// 1-based line (text formats) or item number (SQLite rows) used in diagnostics.
    public var line: Int
    /// The number, pattern or range field as UTF-8 bytes, untrimmed.
    public var number: UnsafeRawBufferPointer
    /// The label field as UTF-8 bytes, or nil when the row has none.
    public var label: UnsafeRawBufferPointer?

    /// A row whose buffers stay valid only while the callback that receives it runs.
    public init(line: Int, number: UnsafeRawBufferPointer, label: UnsafeRawBufferPointer?) {
        self.line = line
        self.number = number
        self.label = label
    }
}

/// Anything that yields rows in source order: a text file, CSV, vCard, SQLite query...
package protocol EntrySource {
    /// How diagnostics name this source: a path, `<stdin>`, or `db.sqlite:SELECT ...`.
    var name: String { get }
    /// Calls `body` once per row, in order. Throws `CallDirError` for unreadable input.
    func forEachRow(_ body: (SourceRow) throws -> Void) throws
}

/// A list whose every pass is one stream from its `InputOrigin`, read by one parser (plist,
/// vCard): what opening, naming and closing it takes, written once.
package protocol StreamedListSource: EntrySource {
    var origin: InputOrigin { get }
    init(origin: InputOrigin)
    /// Reads one pass's rows from `stream`, which `forEachRow` opens and closes.
    func rows(from stream: ByteStream, _ body: (SourceRow) throws -> Void) throws
}

extension StreamedListSource {
    /// Opens the list at `path` (`-` is standard input; gzip is decompressed).
    package init(path: String) throws {
        self.init(origin: try InputOrigin(path: path))
    }

    package var name: String { origin.name }

    package func forEachRow(_ body: (SourceRow) throws -> Void) throws {
        let stream = try origin.openStream()
        defer { stream.close() }
        try rows(from: stream, body)
    }
}
