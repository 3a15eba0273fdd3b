import CSQLite
import Foundation
import Testing
@testable import CallDir

/// Creates a real database with the C API: `calls(n INTEGER, t TEXT, label TEXT)`.
private func makeDatabase(_ path: String) throws {
    var db: OpaquePointer?
    #expect(sqlite3_open(path, &db) == SQLITE_OK)
    defer { sqlite3_close(db) }
    let sql = """
        CREATE TABLE calls (id INTEGER PRIMARY KEY, n INTEGER, t TEXT, label TEXT);
        INSERT INTO calls (n, t, label) VALUES (41215601234, '+41 21 560 12 34', 'Spam');
        INSERT INTO calls (n, t, label) VALUES (9223372036854775807, '33162######', NULL);
        INSERT INTO calls (n, t, label) VALUES (-5, NULL, '');
        INSERT INTO calls (n, t, label) VALUES (NULL, 'Café', 'Zürich ☎');
        """
    var failure: UnsafeMutablePointer<CChar>?
    let rc = sqlite3_exec(db, sql, nil, nil, &failure)
    #expect(rc == SQLITE_OK, "\(failure.map { String(cString: $0) } ?? "")")
    sqlite3_free(failure)
}

private func sqliteRows(_ query: String, _ body: (String, [CollectedRow]) throws -> Void) throws {
    try withTempDir { dir in
        let path = dir.path("calls.sqlite")
        try makeDatabase(path)
        try body(path, try collectRows(SQLiteSource(path: path, query: query)))
    }
}

@Suite("Input: SQLite")
struct InputSQLiteTests {
    @Test func integerNumbersAreFormattedAsDecimalDigits() throws {
        try sqliteRows("SELECT n, label FROM calls ORDER BY id") { _, rows in
            #expect(rows == [
                CollectedRow(1, "41215601234", "Spam"),
                CollectedRow(2, "9223372036854775807", nil),  // NULL label
                CollectedRow(3, "-5", nil),                    // empty label is no label
                CollectedRow(4, "", "Zürich ☎"),               // NULL number is an empty field
            ])
        }
    }

    @Test func textNumbersAndSingleColumnQueries() throws {
        try sqliteRows("select t from calls order by id") { _, rows in
            #expect(rows == [
                CollectedRow(1, "+41 21 560 12 34"), CollectedRow(2, "33162######"),
                CollectedRow(3, ""), CollectedRow(4, "Café"),
            ])
        }
        try sqliteRows("WITH x AS (SELECT n, id FROM calls) SELECT id, n FROM x WHERE id <= 2 ORDER BY id") { _, rows in
            #expect(rows == [CollectedRow(1, "1", "41215601234"), CollectedRow(2, "2", "9223372036854775807")])
        }
    }

    @Test func decimalFormattingEdges() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 24, alignment: 1)
        defer { buffer.deallocate() }
        for value: Int64 in [0, 7, 10, -1, Int64.max, Int64.min, 4_121_560_000] {
            #expect(String(decoding: SQLiteSource.formatDecimal(value, into: buffer), as: UTF8.self) == "\(value)")
        }
    }

    @Test func badQueryQuotesSQLiteAndNamesPathAndQuery() throws {
        try withTempDir { dir in
            let path = dir.path("calls.sqlite")
            try makeDatabase(path)
            let query = "SELECT nope FROM calls"
            let error = callDirError { _ = try collectRows(SQLiteSource(path: path, query: query)) }
            #expect(error?.code == .badInput)
            #expect(error?.path == path)
            #expect(error?.message.contains("no such column: nope") == true)
            #expect(error?.message.contains("(query: SELECT nope FROM calls)") == true)

            let two = callDirError { _ = try collectRows(SQLiteSource(path: path, query: "SELECT 1; SELECT 2")) }
            #expect(two?.message.contains("more than one statement") == true)
            // Writing is impossible: the database is opened read-only.
            let write = callDirError { _ = try collectRows(SQLiteSource(path: path, query: "DELETE FROM calls")) }
            #expect(write?.code == .badInput)
            #expect(try collectRows(SQLiteSource(path: path, query: "SELECT n FROM calls")).count == 4)
        }
    }

    @Test func missingFileIsAnErrorAndIsNotCreated() throws {
        try withTempDir { dir in
            let path = dir.path("missing.sqlite")
            let error = callDirError { _ = try collectRows(SQLiteSource(path: path, query: "SELECT 1")) }
            #expect(error?.code == .io)
            #expect(error?.path == path)
            #expect(error?.message.contains("unable to open database file") == true)
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test func notADatabaseIsBadInput() throws {
        try withTempDir { dir in
            let path = try dir.write("list.txt", String(repeating: "+41215601234\n", count: 100))
            // SQLite reads the file lazily: the query must touch the schema.
            let error = callDirError { _ = try collectRows(SQLiteSource(path: path, query: "SELECT n FROM calls")) }
            #expect(error?.code == .badInput)
            #expect(error?.message.contains("file is not a database") == true)
        }
    }

    @Test func specSplitsAtTheColonBeforeTheQuery() throws {
        let plain = try SQLiteSource(spec: "spam.sqlite:SELECT number FROM t")
        #expect(plain.path == "spam.sqlite")
        #expect(plain.query == "SELECT number FROM t")
        let colons = try SQLiteSource(spec: "/data/a:b/2024:01.db:  with x as (select 1) select * from x")
        #expect(colons.path == "/data/a:b/2024:01.db")
        #expect(colons.query == "with x as (select 1) select * from x")
        #expect(colons.name == "/data/a:b/2024:01.db:with x as (select 1) select * from x")
        let selectedDir = try SQLiteSource(spec: "selected:stuff.db:Select 1")
        #expect(selectedDir.path == "selected:stuff.db")
        for bad in ["spam.sqlite", "spam.sqlite:DELETE FROM t", ":SELECT 1", "db:SELECTION"] {
            let error = callDirError { _ = try SQLiteSource(spec: bad) }
            #expect(error?.code == .usage, "\(bad)")
        }
    }
}
