/* The compile baseline of issue 5: a plain C program that parses a sorted list of decimal
 * numbers, one per line, and writes them as raw little-endian 8-byte integers.
 * Written the way one would write it without tuning: stdio (fgets, fwrite) and strtoull.
 * It checks what calldir checks cheaply (digits only, strictly ascending), so that both do
 * comparable work; it does not checksum, normalise formats or compress.
 * Build: cc -O2 -o parse_raw parse_raw.c    Run: parse_raw LIST OUT */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: parse_raw LIST OUT\n"); return 2; }
    FILE *in = fopen(argv[1], "r");
    FILE *out = fopen(argv[2], "w");
    if (!in || !out) { perror("parse_raw"); return 2; }
    char line[256];
    unsigned long long previous = 0, count = 0, lineno = 0;
    while (fgets(line, sizeof line, in)) {
        lineno++;
        char *end;
        errno = 0;
        unsigned long long n = strtoull(line, &end, 10);
        if (end == line || errno || (*end != '\n' && *end != '\r' && *end != '\0')) {
            fprintf(stderr, "line %llu: not a number\n", lineno); return 1;
        }
        if (n <= previous) { fprintf(stderr, "line %llu: not ascending\n", lineno); return 1; }
        previous = n;
        uint64_t le = n; /* x86-64 and arm64 are little-endian */
        fwrite(&le, 8, 1, out);
        count++;
    }
    if (ferror(in) || fclose(out) != 0) { perror("parse_raw"); return 2; }
    fprintf(stderr, "%llu numbers\n", count);
    return 0;
}
