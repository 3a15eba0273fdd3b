/* Times SQLite lookups of a query file through the C API: one prepared statement
 * (SELECT 1 FROM t WHERE n = ?) bound with the number as an integer, inside one read
 * transaction. Build: cc -O2 -o sqlite_bulk sqlite_bulk.c -lsqlite3
 * Run: sqlite_bulk DB QUERIES [PASSES] */
#include <sqlite3.h>
#include "bulk_common.h"

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: sqlite_bulk DB QUERIES [PASSES]\n"); return 2; }
    int passes = argc > 3 ? atoi(argv[3]) : 5;
    size_t n;
    char (*q)[16] = read_queries(argv[2], &n);
    long long *keys = malloc(n * sizeof *keys);
    for (size_t i = 0; i < n; i++) keys[i] = strtoll(q[i], NULL, 10);
    sqlite3 *db;
    sqlite3_stmt *stmt;
    if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "SELECT 1 FROM t WHERE n = ?", -1, &stmt, NULL) != SQLITE_OK) {
        fprintf(stderr, "sqlite_bulk: %s\n", sqlite3_errmsg(db)); return 2;
    }
    double times[64];
    size_t found = 0;
    for (int p = 0; p < passes && p < 64; p++) {
        found = 0;
        sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
        double start = now();
        for (size_t i = 0; i < n; i++) {
            sqlite3_bind_int64(stmt, 1, keys[i]);
            found += sqlite3_step(stmt) == SQLITE_ROW;
            sqlite3_reset(stmt);
        }
        times[p] = now() - start;
        sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    }
    report(n, found, times, passes);
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return 0;
}
