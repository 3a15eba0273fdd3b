import CSQLite
import Foundation
import Testing
@testable import CallDir
import CallDirReader

/// Issue 39 item 4: a value is bounded before it is copied. An 8 KB database whose view builds
/// a 600 MB label took 2.6 GiB; SQLite now refuses to make any value over 1 MiB
/// (`SQLITE_LIMIT_LENGTH`), so the query fails at that row, naming the bound.
@Suite("SQLite values bounded before they are copied")
struct SQLiteBoundsTests {
    @Test("a view that builds a label of megabytes fails at its row, naming the bound; short rows before it are read")
    func hugeValueFromAView() throws {
        try withTempDir { dir in
            let path = dir.path("small.sqlite")
            var db: OpaquePointer?
            #expect(sqlite3_open(path, &db) == SQLITE_OK)
            let sql = """
                CREATE TABLE calls (n INTEGER, size INTEGER);
                INSERT INTO calls VALUES (14085550000, 3), (14085550007, 8388608);
                CREATE VIEW labelled AS SELECT n, replace(hex(zeroblob(size / 2)), '0', 'x') AS label FROM calls;
                """
            #expect(sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK)
            sqlite3_close(db)
            var rows: [Int] = []
            do {
                try SQLiteSource(path: path, query: "SELECT n, label FROM labelled").forEachRow { row in
                    rows.append(row.label?.count ?? 0)
                }
                Issue.record("an 8 MiB label was read whole: \(rows)")
            } catch let error as CallDirError {
                #expect(rows == [2], "rows before the huge one: \(rows)")
                #expect(error.message.contains("row 2: it makes a value longer than 1048576 bytes"), "\(error.message)")
            }
        }
    }
}
