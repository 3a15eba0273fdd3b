#!/usr/bin/env bash
# Load test for `calldir serve` with wrk, on a generated index of COUNT entries (default
# 10,000,000: 9M blocked, 1M labelled). Reports requests/s and latency percentiles for single
# GETs and for batch POSTs, the same single GETs against the same HTTP stack answering a
# constant response (the baseline the issue's 80% target refers to), and single GETs while
# the index is reloaded every 500 ms.
#
#   Benchmarks/scripts/serve-load.sh [COUNT]
#
# Environment: DURATION per run (default 5s), ROUNDS (7; the median round is reported, and
# the median of the per-round ratios single/constant, each pair run back to back),
# CONNECTIONS (64), BATCH (1000 numbers), BATCH_CONNECTIONS (4), PORT (18480, 18481, 18482).
# Threads: wrk and the server share this machine's cores, so by default the single-GET runs give
# one core to each (SERVER_THREADS=1, WRK_THREADS=1: more threads than cores only adds
# scheduler delay to the tail), while the batch run, where wrk is nearly idle, lets the server
# use every core (BATCH_SERVER_THREADS, default: the number of cores).
# BIN_DIR: run the calldir and calldir-serve found there instead of building this checkout
# (to compare two builds); BASELINE=0 skips the constant-response server (and its build).
# Generated lists and the index are kept in Benchmarks/out/serve-load/ (git-ignored) and reused.
# Running libFuzzer processes (release/Fuzz*) are paused during each wrk run (fuzz-pause.sh).
set -euo pipefail
export CALLDIR_STATIC_LINK=1  # release executables link statically (Package.swift)

count=${1:-10000000}
duration=${DURATION:-5s}
connections=${CONNECTIONS:-64}
wrk_threads=${WRK_THREADS:-1}
server_threads=${SERVER_THREADS:-1}
batch_server_threads=${BATCH_SERVER_THREADS:-$(nproc)}
batch=${BATCH:-1000}
batch_connections=${BATCH_CONNECTIONS:-4}
port=${PORT:-18480}
root=$(cd "$(dirname "$0")/../.." && pwd)
scripts=$root/Benchmarks/scripts
work=$root/Benchmarks/out/serve-load
mkdir -p "$work"
rm -f "$work"/wrk-*.txt

command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
command -v curl >/dev/null || { apt-get update -qq && apt-get install -y -qq curl >/dev/null; }

baseline=${BASELINE:-1}
if [ -z "${BIN_DIR:-}" ]; then
    echo "== release build" >&2
    (cd "$root" && swift build -c release 2>&1 | grep -E "error|Build" >&2) || true
fi
bin_dir=${BIN_DIR:-$root/.build/release}
bin=$bin_dir/calldir  # `calldir serve` execs calldir-serve from the same folder
constant_bin=$root/Benchmarks/.build/release/calldir-serve-constant
if [ "$baseline" = 1 ]; then
    echo "== release build of the constant-response baseline (Benchmarks package)" >&2
    (cd "$root/Benchmarks" && swift build -c release --product calldir-serve-constant 2>&1 | grep -E "error|Build" >&2) || true
fi
test -x "$bin" && test -x "$bin_dir/calldir-serve"

index=$work/index-$count.calldir
if [ ! -s "$index" ]; then
    echo "== generating $count numbers and compiling" >&2
    python3 "$scripts/gen-numbers.py" lists "$count" "$work/block.txt" "$work/identify.txt"
    "$bin" compile --block "$work/block.txt" --identify "$work/identify.txt" -o "$index"
    rm -f "$work/block.txt" "$work/identify.txt"
fi
sample=$work/sample-$count.txt
[ -s "$sample" ] || python3 "$scripts/gen-numbers.py" sample "$count" 42 20000 > "$sample"

server_pid=
start_server() {  # start_server LOGFILE --port PORT [extra args...]; SERVER=binary to run instead
    local log=$1 p=$3
    shift
    if [ -n "${SERVER:-}" ]; then "$SERVER" --index "$index" "$@" 2>"$log" &
    else "$bin" serve --index "$index" "$@" 2>"$log" &
    fi
    server_pid=$!
    for _ in $(seq 1 600); do
        curl -sf "http://127.0.0.1:$p/healthz" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "server did not become ready:" >&2; cat "$log" >&2; exit 1
}
stop_server() {  # stop_server PID: SIGTERM, then the exit status must be 0
    kill -TERM "$1"
    local status=0
    wait "$1" || status=$?
    [ "$status" -eq 0 ] || echo "warning: server exited with $status" >&2
}

# shellcheck source=fuzz-pause.sh
source "$scripts/fuzz-pause.sh"
trap fuzzers_resume EXIT

# run_wrk NAME SCRIPT CONNECTIONS PORT [script args...]: prints "NAME rps p50 p90 p99 max errors"
run_wrk() {
    local name=$1 script=$2 conns=$3 p=$4; shift 4
    local out
    fuzzers_pause
    out=$(wrk -t"$wrk_threads" -c"$conns" -d"$duration" --timeout 5s -s "$script" "http://127.0.0.1:$p" -- "$@")
    fuzzers_resume
    echo "$out" >> "$work/wrk-$name.txt"
    local line
    line=$(echo "$out" | grep '^RESULT')
    python3 - "$name" "$line" <<'PY'
import sys
name, line = sys.argv[1], sys.argv[2]
f = dict(kv.split("=") for kv in line.split()[1:])
rps = int(f["requests"]) / (int(f["duration_us"]) / 1e6)
errors = int(f["status_errors"]) + int(f["socket_errors"])
ms = lambda k: int(f[k]) / 1000
print(f"{name} {rps:.0f} {ms('p50_us'):.3f} {ms('p90_us'):.3f} {ms('p99_us'):.3f} {ms('max_us'):.3f} {errors}")
PY
}

results=$work/results.txt
: > "$results"
rounds=${ROUNDS:-7}
echo "== $(du -h "$index" | cut -f1) index, $count entries; servers on :$port (lookup), :$((port + 1)) (constant), :$((port + 2)) (batch)" >&2
start_server "$work/serve.log" --port "$port" --threads "$server_threads"
lookup_pid=$server_pid
rss_start=$(ps -o rss= -p "$lookup_pid")
constant_pid=
if [ "$baseline" = 1 ]; then
    SERVER=$constant_bin start_server "$work/serve-constant.log" --port "$((port + 1))" --threads "$server_threads"
    constant_pid=$server_pid
fi
start_server "$work/serve-batch.log" --port "$((port + 2))" --threads "$batch_server_threads"
batch_pid=$server_pid
curl -s "http://127.0.0.1:$port/v1/lookup/$(head -1 "$sample")" >&2; echo >&2
for p in "$port" ${constant_pid:+"$((port + 1))"}; do  # warm-up
    wrk -t"$wrk_threads" -c"$connections" -d3s -s "$scripts/lookup.lua" "http://127.0.0.1:$p" -- "$sample" >/dev/null
done

# Alternate the servers round by round, so load from elsewhere on the machine hits each alike.
for round in $(seq 1 "$rounds"); do
    echo "== round $round of $rounds" >&2
    run_wrk single "$scripts/lookup.lua" "$connections" "$port" "$sample" | tee -a "$results" >&2
    [ -z "$constant_pid" ] || run_wrk constant "$scripts/lookup.lua" "$connections" "$((port + 1))" "$sample" | tee -a "$results" >&2
    run_wrk batch "$scripts/batch.lua" "$batch_connections" "$((port + 2))" "$sample" "$batch" | tee -a "$results" >&2
done
rss_end=$(ps -o rss= -p "$lookup_pid")

echo "== single GETs while the index is reloaded (SIGHUP) every 500 ms" >&2
( while kill -0 "$lookup_pid" 2>/dev/null; do sleep 0.5; kill -HUP "$lookup_pid" 2>/dev/null || true; done ) &
hup_pid=$!
run_wrk reloading "$scripts/lookup.lua" "$connections" "$port" "$sample" | tee -a "$results" >&2
kill "$hup_pid" 2>/dev/null || true
wait "$hup_pid" 2>/dev/null || true
reloads=$(curl -s "http://127.0.0.1:$port/metrics" | awk '/^calldir_index_reloads_total/ {print $2}')
reload_ms=$(grep -o 'ms=[0-9]*' "$work/serve.log" | tail -n +2 | cut -d= -f2 | sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "?"}')
stop_server "$batch_pid"
[ -z "$constant_pid" ] || stop_server "$constant_pid"
stop_server "$lookup_pid"

python3 - "$results" "$batch" "$count" "$rss_start" "$rss_end" "$reloads" "$reload_ms" <<'PY'
import sys, os, statistics
path, batch, count, rss0, rss1, reloads, reload_ms = sys.argv[1:]
runs = {}
for line in open(path):
    name, rps, p50, p90, p99, mx, err = line.split()
    runs.setdefault(name, []).append(dict(rps=float(rps), p50=p50, p90=p90, p99=p99, max=mx, errors=int(err)))
def median_run(name):  # the round with the median throughput, reported whole
    ordered = sorted(runs[name], key=lambda r: r["rps"])
    return ordered[(len(ordered) - 1) // 2] if len(ordered) % 2 == 0 else ordered[len(ordered) // 2]
print(f"\ncalldir serve, {os.cpu_count()} cores shared with wrk, {int(count):,}-entry index; "
      f"median of {len(runs['single'])} rounds of {os.environ.get('DURATION', '5s')}; "
      f"single GETs: server {os.environ.get('SERVER_THREADS', '1')} thread(s), wrk {os.environ.get('WRK_THREADS', '1')}; "
      f"batches: server {os.environ.get('BATCH_SERVER_THREADS', os.cpu_count())}")
print(f"{'run':<36}{'req/s':>10}{'p50 ms':>9}{'p90 ms':>9}{'p99 ms':>9}{'max ms':>9}{'errors':>8}")
labels = {"single": f"GET /v1/lookup/{{n}}, {os.environ.get('CONNECTIONS', '64')} conns",
          "constant": "constant response (baseline)",
          "batch": f"POST /v1/lookup, {batch}/req, {os.environ.get('BATCH_CONNECTIONS', '4')} conns",
          "reloading": "GET while SIGHUP every 500 ms"}
for key in [k for k in ["single", "constant", "batch", "reloading"] if k in runs]:
    r = median_run(key)
    errors = sum(x["errors"] for x in runs[key])
    print(f"{labels[key]:<36}{r['rps']:>10,.0f}{r['p50']:>9}{r['p90']:>9}{r['p99']:>9}{r['max']:>9}{errors:>8}")
print("all rounds, req/s: " + "; ".join(f"{k} " + ", ".join(f"{x['rps']:,.0f}" for x in v) for k, v in runs.items()))
print(f"batch lookups: {median_run('batch')['rps'] * int(batch):,.0f} numbers/s (median round), "
      f"{max(x['rps'] for x in runs['batch']) * int(batch):,.0f} (best round)")
ratios = sorted(a["rps"] / b["rps"] for a, b in zip(runs["single"], runs.get("constant", [])))
if ratios:
    print(f"single GETs vs constant baseline, per round (run back to back): median {100 * statistics.median(ratios):.0f}%, "
          f"range {100 * ratios[0]:.0f}-{100 * ratios[-1]:.0f}%")
    best = max(range(len(runs["constant"])), key=lambda i: runs["constant"][i]["rps"])  # the quietest round
    s1, c1 = runs["single"][best], runs["constant"][best]
    print(f"quietest round (highest baseline): single {s1['rps']:,.0f} req/s p99 {s1['p99']} ms; "
          f"constant {c1['rps']:,.0f} req/s p99 {c1['p99']} ms; {100 * s1['rps'] / c1['rps']:.0f}%")
print(f"lookup server RSS: {int(rss0) // 1024} MiB after start, {int(rss1) // 1024} MiB after the runs; "
      f"{reloads} index loads, median load+verify {reload_ms} ms")
PY
