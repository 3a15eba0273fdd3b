import CSQLite
import CallDirReader

/// Rows of an SQL query on an SQLite database, opened read-only.
///
/// Column 0 is the number: INTEGER values are written as decimal digits (without allocating),
/// TEXT and REAL as SQLite's text, BLOB as its bytes, NULL as an empty field (rejected later
/// with its row number). Column 1, if the query has one, is the label (NULL or empty: none).
/// A row's `line` is its 1-based position in the result. A missing database file is an error,
/// never a new empty database. SQLite does its own file I/O, outside `InputFile`.
package struct SQLiteSource: EntrySource {
    package let path: String
    package let query: String

    /// `PATH:QUERY`, how diagnostics name this source.
    package var name: String { path + ":" + query }

    package init(path: String, query: String) {
        self.path = path
        self.query = query
    }

    /// Parses `PATH:QUERY`, e.g. `blocked.sqlite:SELECT number, name FROM calls`. The split is at
    /// the first `:` followed (after optional spaces) by `SELECT` or `WITH` in any case, so paths
    /// may contain colons.
    package init(spec: String) throws {
        let bytes = Array(spec.utf8)
        for (index, byte) in bytes.enumerated() where byte == 0x3A && index > 0 {
            var start = index + 1
            while start < bytes.count && (bytes[start] == 0x20 || bytes[start] == 0x09) { start += 1 }
            let rest = bytes[start...]
            if Self.startsWithKeyword(rest, "SELECT") || Self.startsWithKeyword(rest, "WITH") {
                self.init(path: String(decoding: bytes[..<index], as: UTF8.self),
                          query: String(decoding: rest, as: UTF8.self))
                return
            }
        }
        throw CallDirError(.usage, "an SQLite source is written PATH:QUERY, where QUERY starts with SELECT or "
                           + "WITH, e.g. 'spam.sqlite:SELECT number, label FROM numbers'; got '\(spec)'")
    }

    private static func startsWithKeyword(_ text: ArraySlice<UInt8>, _ keyword: String) -> Bool {
        let word = Array(keyword.utf8)
        guard text.count >= word.count else { return false }
        for (offset, expected) in word.enumerated() {
            var byte = text[text.startIndex + offset]
            if byte >= 0x61 && byte <= 0x7A { byte -= 0x20 }
            if byte != expected { return false }
        }
        guard text.count > word.count else { return true }
        let after = text[text.startIndex + word.count]
        let isIdentifier = (after >= 0x30 && after <= 0x39) || (after >= 0x41 && after <= 0x5A)
            || (after >= 0x61 && after <= 0x7A) || after == 0x5F
        return !isIdentifier
    }

    package func forEachRow(_ body: (SourceRow) throws -> Void) throws {
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }  // harmless on nil; also frees a handle from a failed open
        let opened = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil)
        guard opened == SQLITE_OK, let db else {
            let reason = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            throw CallDirError(.io, "cannot open the SQLite database: \(reason); check the path and its "
                               + "permissions", path: path)
        }
        sqlite3_busy_timeout(db, 5_000)
        // No value is made bigger than this, so a view that builds a 600 MB label fails at that
        // row instead of taking gigabytes (labels are at most 255 bytes; numbers shorter).
        sqlite3_limit(db, SQLITE_LIMIT_LENGTH, Self.maxValueBytes)
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        try prepare(db, &statement)
        guard let statement else { throw failure(db, "the query is empty; write a SELECT statement") }
        let columns = sqlite3_column_count(statement)
        guard columns > 0 else { throw failure(db, "the query returns no columns; select the number first") }
        // Digits of INTEGER values: one half for the number, one for the label.
        let digits = UnsafeMutableRawBufferPointer.allocate(byteCount: 48, alignment: 1)
        defer { digits.deallocate() }
        let numberDigits = UnsafeMutableRawBufferPointer(rebasing: digits[0..<24])
        let labelDigits = UnsafeMutableRawBufferPointer(rebasing: digits[24..<48])
        var row = 0
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { return }
            guard rc != SQLITE_TOOBIG else {
                throw failure(db, "the query failed at row \(row + 1): it makes a value longer than \(Self.maxValueBytes) bytes "
                              + "(a label is at most \(IndexFormat.maxLabelBytes) bytes)")
            }
            guard rc == SQLITE_ROW else { throw failure(db, "the query failed at row \(row + 1): \(message(db))") }
            row += 1
            let number = Self.field(statement, 0, digits: numberDigits) ?? UnsafeRawBufferPointer(start: nil, count: 0)
            var label = columns > 1 ? Self.field(statement, 1, digits: labelDigits) : nil
            if label?.isEmpty == true { label = nil }
            try body(SourceRow(line: row, number: number, label: label))
        }
    }

    /// The longest string or blob the query may make (`SQLITE_LIMIT_LENGTH`).
    static let maxValueBytes: Int32 = 1 << 20

    /// Compiles the query; more than one statement is refused.
    private func prepare(_ db: OpaquePointer, _ statement: inout OpaquePointer?) throws {
        var trailing = ""
        let rc = query.withCString { text -> Int32 in
            var tail: UnsafePointer<CChar>?
            let rc = sqlite3_prepare_v2(db, text, -1, &statement, &tail)
            if let tail { trailing = String(cString: tail) }
            return rc
        }
        guard rc == SQLITE_OK else { throw failure(db, "cannot run the query: \(message(db))") }
        if trailing.contains(where: { !$0.isWhitespace && $0 != ";" }) {
            throw failure(db, "the query has more than one statement; give a single SELECT")
        }
    }

    /// Bytes of a column of the current row, nil for NULL. INTEGER goes through `digits` (valid
    /// until the next call); other types point into SQLite's memory (valid until the next step).
    private static func field(_ statement: OpaquePointer, _ column: Int32,
                              digits: UnsafeMutableRawBufferPointer) -> UnsafeRawBufferPointer? {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_NULL:
            return nil
        case SQLITE_INTEGER:
            return formatDecimal(sqlite3_column_int64(statement, column), into: digits)
        case SQLITE_BLOB:
            let base = sqlite3_column_blob(statement, column)
            return UnsafeRawBufferPointer(start: base, count: Int(sqlite3_column_bytes(statement, column)))
        default:  // TEXT, FLOAT: SQLite's UTF-8 text
            let base = sqlite3_column_text(statement, column)
            return UnsafeRawBufferPointer(start: base, count: Int(sqlite3_column_bytes(statement, column)))
        }
    }

    /// Writes `value` in decimal at the end of `buffer` (24 bytes are enough for any Int64).
    static func formatDecimal(_ value: Int64, into buffer: UnsafeMutableRawBufferPointer) -> UnsafeRawBufferPointer {
        var magnitude = value.magnitude
        var index = buffer.count
        repeat {
            index -= 1
            buffer[index] = 0x30 + UInt8(magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
        if value < 0 {
            index -= 1
            buffer[index] = 0x2D
        }
        return UnsafeRawBufferPointer(rebasing: buffer[index...])
    }

    private func message(_ db: OpaquePointer) -> String { String(cString: sqlite3_errmsg(db)) }

    private func failure(_ db: OpaquePointer, _ text: String) -> CallDirError {
        CallDirError(.badInput, "\(text) (query: \(query))", path: path)
    }
}
