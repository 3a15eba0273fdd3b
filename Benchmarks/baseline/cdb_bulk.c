/* Times tinycdb lookups of a query file: the database opened once and mapped (cdb_init),
 * then cdb_find per query, keys as the decimal text the list holds.
 * Build: cc -O2 -o cdb_bulk cdb_bulk.c -lcdb    Run: cdb_bulk DB QUERIES [PASSES] */
#include <cdb.h>
#include <fcntl.h>
#include <unistd.h>
#include "bulk_common.h"

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: cdb_bulk DB QUERIES [PASSES]\n"); return 2; }
    int passes = argc > 3 ? atoi(argv[3]) : 5;
    size_t n;
    char (*q)[16] = read_queries(argv[2], &n);
    int fd = open(argv[1], O_RDONLY);
    struct cdb db;
    if (fd < 0 || cdb_init(&db, fd) != 0) { perror(argv[1]); return 2; }
    double times[64];
    size_t found = 0;
    for (int p = 0; p < passes && p < 64; p++) {
        found = 0;
        double start = now();
        for (size_t i = 0; i < n; i++) found += cdb_find(&db, q[i], strlen(q[i])) > 0;
        times[p] = now() - start;
    }
    report(n, found, times, passes);
    return 0;
}
