#!/usr/bin/env bash
# Start-up of the daemon: time from exec of `calldir serve` (and of `calldir-serve` itself) on
# data/'s compiled index to the first HTTP 200 from /healthz on 127.0.0.1; the resident size
# (VmRSS) at that moment; the CPU time (user + system, all threads, from wait4) of the whole
# run, start to exit, which a loaded machine's run queue does not inflate; and the time from SIGTERM to exit 0 (a SIGTERM the daemon did not act
# on within 2 s is counted as lost and sent again; an exit other than 0 is counted too).
#
#   Benchmarks/scripts/serve-startup.sh [BIN_DIR]
#
# BIN_DIR holds calldir and calldir-serve (default: .build/release, built here if missing).
# Environment: RUNS per executable (default 21; the median is reported), PORT (18490),
# THREADS (empty: the daemon's default, one event loop per core).
# How: a Python client takes a monotonic timestamp, posix_spawn()s the daemon, then polls
# without sleeping: connect(); on ECONNREFUSED try again at once; once connected, send
# `GET /healthz` and read the status line; a 503 (not ready yet) is polled again. The poll
# granularity is one failed connect() on loopback, a few microseconds; the figure includes
# posix_spawn (about 0.1 ms from Python here), and the client runs on the same 2 cores.
set -euo pipefail
export CALLDIR_STATIC_LINK=1  # release executables link statically (Package.swift)

root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-$root/.build/release}
work=$root/Benchmarks/out/serve-startup
mkdir -p "$work"
if [ ! -x "$bin/calldir-serve" ]; then
    echo "== release build" >&2
    (cd "$root" && swift build -c release 2>&1 | grep -E "error|Build" >&2) || true
fi
test -x "$bin/calldir" && test -x "$bin/calldir-serve"

index=$work/data.calldir
"$bin/calldir" compile -q --block "$root/data/blocked.txt" --identify "$root/data/identified.csv" \
    --allow "$root/data/allowed.txt" -o "$index" >/dev/null

python3 - "$bin" "$index" "${RUNS:-21}" "${PORT:-18490}" "${THREADS:-}" <<'PY'
import os, signal, socket, statistics, sys, time
bin_dir, index, runs, port, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
extra = ["--port", str(port), "--poll-interval", "0"] + (["--threads", threads] if threads else [])
commands = {
    "calldir serve": [f"{bin_dir}/calldir", "serve", "--index", index] + extra,
    "calldir-serve": [f"{bin_dir}/calldir-serve", "--index", index] + extra,
}
request = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"

def healthz_status():
    """The /healthz status, or None while nothing listens."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.connect(("127.0.0.1", port))
    except (ConnectionRefusedError, ConnectionResetError):
        s.close()
        return None
    try:
        s.sendall(request)
        head = b""
        while b"\r\n" not in head:
            chunk = s.recv(64)
            if not chunk:
                return None
            head += chunk
        return int(head.split(b" ", 2)[1])
    except (ConnectionResetError, BrokenPipeError):
        return None
    finally:
        s.close()

def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])

def one_run(argv):
    devnull = os.open(os.devnull, os.O_WRONLY)
    t0 = time.monotonic_ns()
    pid = os.posix_spawn(argv[0], argv, os.environ,
                         file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 2), (os.POSIX_SPAWN_DUP2, devnull, 1)])
    polls = 0
    while True:
        polls += 1
        status = healthz_status()
        if status == 200:
            break
        if time.monotonic_ns() - t0 > 10e9:
            os.kill(pid, signal.SIGKILL)
            sys.exit(f"{argv[0]} not ready after 10 s")
    ready = (time.monotonic_ns() - t0) / 1e6
    rss = rss_kib(pid)
    t1 = time.monotonic_ns()
    os.kill(pid, signal.SIGTERM)
    lost = 0
    while True:  # a SIGTERM that arrives before the daemon traps it may be lost: count, send again
        done, code, usage = os.wait4(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic_ns() - t1 > (lost + 1) * 2e9:
            lost += 1
            os.kill(pid, signal.SIGTERM)
        time.sleep(0.0005)
    stop = (time.monotonic_ns() - t1) / 1e6 if not lost else float("nan")
    os.close(devnull)
    if code != 0:  # killed by the SIGTERM (status 0xf): it came before the daemon trapped it
        print(f"{argv[0]} exited with status {code:#x} after SIGTERM", file=sys.stderr)
    cpu = (usage.ru_utime + usage.ru_stime) * 1e3  # all threads, start to exit
    return ready, rss, stop, polls, lost, cpu, code != 0

results = {name: [] for name in commands}
for _ in range(runs):  # interleaved, so load from elsewhere hits both alike
    for name, argv in commands.items():
        results[name].append(one_run(argv))
size = lambda p: os.path.getsize(p) / 2**20
print(f"start-up to first /healthz 200, {os.cpu_count()} cores, median of {runs} runs "
      f"(binaries in {bin_dir}: calldir {size(bin_dir + '/calldir'):.1f} MiB, "
      f"calldir-serve {size(bin_dir + '/calldir-serve'):.1f} MiB)")
print(f"{'command':<16}{'ready ms':>10}{'min':>8}{'max':>8}{'RSS MiB':>9}{'SIGTERM->exit ms':>18}{'polls':>7}{'lost SIGTERM':>14}{'not exit 0':>12}{'CPU ms':>8}")
for name, rows in results.items():
    ready = [r[0] for r in rows]
    print(f"{name:<16}{statistics.median(ready):>10.2f}{min(ready):>8.2f}{max(ready):>8.2f}"
          f"{statistics.median(r[1] for r in rows) / 1024:>9.1f}{statistics.median([r[2] for r in rows if not r[4]] or [float('nan')]):>18.2f}"
          f"{int(statistics.median(r[3] for r in rows)):>7}{sum(r[4] for r in rows):>14}{sum(r[6] for r in rows):>12}"
          f"{statistics.median(r[5] for r in rows):>8.1f}")
print("all runs, ms: " + "; ".join(f"{n} " + ", ".join(f"{r[0]:.2f}" for r in rows) for n, rows in results.items()))
PY
