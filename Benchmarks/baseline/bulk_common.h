/* Shared by the peers' bulk-lookup timers: read the query file into memory, time passes.
 * Each timer prints the same line as calldir-bulk:
 *   lookups=N found=F best_seconds=S median_seconds=S */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char (*read_queries(const char *path, size_t *count))[16] {
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); exit(2); }
    size_t cap = 1 << 20, n = 0;
    char (*q)[16] = malloc(cap * sizeof *q);
    char line[64];
    while (fgets(line, sizeof line, f)) {
        size_t len = strcspn(line, "\r\n");
        if (len == 0 || len >= 16) continue;
        if (n == cap) q = realloc(q, (cap *= 2) * sizeof *q);
        memcpy(q[n], line, len);
        q[n][len] = 0;
        n++;
    }
    fclose(f);
    *count = n;
    return q;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(size_t lookups, size_t found, double *times, int passes) {
    qsort(times, passes, sizeof *times, compare_doubles);
    printf("lookups=%zu found=%zu best_seconds=%.6f median_seconds=%.6f\n", lookups, found, times[0],
           times[passes / 2]);
}
