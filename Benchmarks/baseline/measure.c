/* Runs a command and writes "wall_seconds max_rss_kib exit_status" to REPORT.
 * A small C parent, so that the child's peak RSS is its own: a child forked from Python
 * reports at least the Python interpreter's RSS (ru_maxrss counts the pages it had before
 * exec). Build: cc -O2 -o measure measure.c    Run: measure REPORT COMMAND [ARGS...] */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: measure REPORT COMMAND [ARGS...]\n"); return 2; }
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pid_t pid = fork();
    if (pid < 0) { perror("fork"); return 2; }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        perror(argv[2]);
        _exit(127);
    }
    int status;
    struct rusage usage;
    if (wait4(pid, &status, 0, &usage) < 0) { perror("wait4"); return 2; }
    clock_gettime(CLOCK_MONOTONIC, &end);
    FILE *report = fopen(argv[1], "w");
    if (!report) { perror(argv[1]); return 2; }
    fprintf(report, "%.6f %ld %d\n", (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9,
            usage.ru_maxrss, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    fclose(report);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
