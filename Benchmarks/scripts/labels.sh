#!/usr/bin/env bash
# Identification at scale (docs/BENCHMARKS-LOG.md): calldir next to SQLite and tinycdb on the same
# realistic label corpora (Benchmarks/scripts/labels-corpus.py, Faker, seeded), for every
# SIZE x FRACTION of distinct labels. Prints a markdown table (also kept in
# Benchmarks/out/labels/labels.md).
#
#   Benchmarks/scripts/labels.sh                      # 1M and 10M, 10% and 100% distinct
#   SIZES=1000000 FRACTIONS="0.1 1.0" CALLDIR=/path/to/calldir Benchmarks/scripts/labels.sh
#
# Environment: CALLDIR (default .build/release/calldir, built if missing; any calldir binary, so
# the same harness measures every index format), SIZES, FRACTIONS, ROUNDS (builds and batch runs
# per corpus, median reported, default 3), RUNS (one-shot runs per tool, default 200),
# QUERIES (batch lookups, default 1,000,000), DAEMON (1: also time `calldir serve` with wrk when
# calldir-serve is beside CALLDIR; 0: skip), DURATION (per wrk run, default 5s), PORT (18530).
# Per corpus: calldir compile --identify on the sorted CSV and --sort --memory 64M on the
# shuffled one, and --block on the numbers alone (the blocked-only reference); SQLite: a table
# (number INTEGER PRIMARY KEY, label TEXT), no other index, `.import --csv` in the sqlite3 shell
# (one transaction, default durability, as calldir fsyncs); tinycdb: `cdb -c` of +klen,dlen:k->d
# records (converted beforehand, untimed). Wall time and peak RSS by Benchmarks/baseline/measure.c;
# one-shot lookups by hyperfine -N (median of RUNS); batch: `calldir lookup --index DB -` on
# QUERIES listed numbers in random order, output to /dev/null; daemon: `calldir serve --threads 1`
# on each index, wrk (1 thread, 64 connections) sending single GETs (lookup.lua) and then POSTs of
# 1,000 numbers (batch.lua, 4 connections) drawn from the same queries.
# Corpora are cached in Benchmarks/.corpus, indexes in Benchmarks/out/labels (both git-ignored).
set -euo pipefail
export CALLDIR_STATIC_LINK=1  # release executables link statically (Package.swift)

root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=wrk-rate.sh
source "$root/Benchmarks/scripts/wrk-rate.sh"
sizes=${SIZES:-1000000 10000000}
fractions=${FRACTIONS:-0.1 1.0}
rounds=${ROUNDS:-3}
runs=${RUNS:-200}
queries=${QUERIES:-1000000}
out=$root/Benchmarks/out/labels
mkdir -p "$out"
log() { echo "[labels] $*" >&2; }

need=()
command -v cdb >/dev/null || need+=(tinycdb)
command -v sqlite3 >/dev/null || need+=(sqlite3)
command -v hyperfine >/dev/null || need+=(hyperfine)
command -v cc >/dev/null || need+=(gcc)
if [ ${#need[@]} -gt 0 ]; then
    log "installing ${need[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
venv=$root/Benchmarks/.venv
if ! "$venv/bin/python" -c 'import faker' 2>/dev/null; then
    log "making $venv with Faker"
    python3 -m venv "$venv" && "$venv/bin/pip" install -q faker
fi
calldir=${CALLDIR:-$root/.build/release/calldir}
if [ -z "${CALLDIR:-}" ] && [ ! -x "$calldir" ]; then
    log "building calldir and calldir-serve (release, static stdlib)"
    for product in calldir calldir-serve; do
        (cd "$root" && swift build -c release --static-swift-stdlib --product $product >/dev/null)
    done
fi
daemon=${DAEMON:-1}
if [ "$daemon" = 1 ] && [ ! -x "$(dirname "$calldir")/calldir-serve" ]; then
    log "no calldir-serve beside $calldir: the daemon is not measured"
    daemon=0
fi
duration=${DURATION:-5s}
port=${PORT:-18530}
if [ "$daemon" = 1 ]; then
    for tool in wrk curl; do command -v $tool >/dev/null || { apt-get update -qq && apt-get install -y -qq $tool >/dev/null; }; done
fi
measure=$out/measure
[ -x "$measure" ] || cc -O2 -o "$measure" "$root/Benchmarks/baseline/measure.c"

# timed NAME CMD... [< stdin]: appends "NAME wall_s rss_kib" to $results.
timed() {
    local name=$1; shift
    "$measure" "$out/measure.txt" "$@" >/dev/null || { log "$name failed: $*"; exit 2; }
    echo "$name $(cut -d' ' -f1,2 "$out/measure.txt")" >>"$results"
}

# served NAME INDEX: appends "NAME-get requests/s 0" and "NAME-post numbers/s 0" to $results.
served() {
    local tag=$1 rate
    serve_log=$out/serve.log
    serve_start "$calldir" "$2" "$port" || exit 2
    for kind in get post; do
        if [ $kind = get ]; then rate=$(wrk_rate "$port" "$root/Benchmarks/scripts/lookup.lua" 64 "$duration" "$sample" 1)
        else rate=$(wrk_rate "$port" "$root/Benchmarks/scripts/batch.lua" 4 "$duration" "$sample" 1000); fi
        echo "$tag-$kind $rate 0" >>"$results"
    done
    serve_stop
}

# The records tinycdb's `cdb -c` reads, from the CSV (labels unquoted; lengths in bytes).
cdb_input() {
    "$venv/bin/python" - "$1" "$2" <<'EOF'
import csv, sys
with open(sys.argv[1], encoding="utf-8", newline="") as src, open(sys.argv[2], "wb") as dst:
    rows = csv.reader(src)
    next(rows)
    for number, label in rows:
        key, data = number.encode(), label.encode()
        dst.write(b"+%d,%d:%s->%s\n" % (len(key), len(data), key, data))
    dst.write(b"\n")
EOF
}

# hyperfine medians in ms, one line per command, in order.
oneshot() {
    hyperfine -N -i -w 10 -r "$runs" --export-json "$out/hyperfine.json" "$@" >/dev/null 2>&1
    python3 -c 'import json, statistics, sys
for r in json.load(open(sys.argv[1]))["results"]: print("%.2f" % (statistics.median(r["times"]) * 1e3))' "$out/hyperfine.json"
}

load_start=$(cut -d' ' -f1 /proc/loadavg)
echo "corpus tool build_s rss_mib bytes entries oneshot_ms batch_s sort_s sort_rss_mib get_rps post_nps" >"$out/rows.txt"
# Each corpus's rows also stay in its folder ($out/SIZE-PCT/rows.txt), so the rows of several
# invocations can be joined: cat Benchmarks/out/labels/*/rows.txt | labels-table.py /dev/stdin Q
for size in $sizes; do
    for fraction in $fractions; do
        pct=$(python3 -c "print(round($fraction * 100))")
        name="${size}-${pct}"
        log "corpus $name: generating (cached in Benchmarks/.corpus)"
        sorted=$("$venv/bin/python" "$root/Benchmarks/scripts/labels-corpus.py" --count "$size" --distinct "$fraction")
        shuffled=$("$venv/bin/python" "$root/Benchmarks/scripts/labels-corpus.py" --count "$size" --distinct "$fraction" --shuffle)
        dir=$out/$name
        mkdir -p "$dir"
        [ -s "$dir/numbers.txt" ] || tail -n +2 "$sorted" | cut -d, -f1 >"$dir/numbers.txt"
        sample=$dir/queries-$queries.txt
        [ -s "$sample" ] || shuf -n "$queries" --random-source=<(yes) "$dir/numbers.txt" >"$sample"
        [ -s "$dir/cdb.in" ] || cdb_input "$sorted" "$dir/cdb.in"
        printf '.mode csv\n.import --csv --skip 1 %s t\n' "$sorted" >"$dir/import.sql"
        results=$dir/times.txt
        : >"$results"
        for round in $(seq "$rounds"); do
            rm -f "$dir"/*.calldir "$dir/db.sqlite" "$dir/db.cdb"
            log "$name round $round: builds"
            timed identify "$calldir" compile -q --identify "$sorted" -o "$dir/identify.calldir"
            timed sort "$calldir" compile -q --sort --memory 64M --identify "$shuffled" -o "$dir/sort.calldir"
            timed block "$calldir" compile -q --block "$dir/numbers.txt" -o "$dir/block.calldir"
            sqlite3 "$dir/db.sqlite" 'CREATE TABLE t(number INTEGER PRIMARY KEY, label TEXT)'
            timed sqlite sqlite3 "$dir/db.sqlite" ".read $dir/import.sql"
            timed cdb cdb -c "$dir/db.cdb" "$dir/cdb.in"
            log "$name round $round: batch lookups"
            timed batch-identify sh -c "'$calldir' lookup --index '$dir/identify.calldir' - <'$sample' >/dev/null; [ \$? -le 1 ]"
            timed batch-block sh -c "'$calldir' lookup --index '$dir/block.calldir' - <'$sample' >/dev/null; [ \$? -le 1 ]"
            if [ "$daemon" = 1 ]; then
                log "$name round $round: daemon"
                if [ $((round % 2)) = 1 ]; then
                    served serve-identify "$dir/identify.calldir"; served serve-block "$dir/block.calldir"
                else  # the other order every other round, as the machine's load drifts
                    served serve-block "$dir/block.calldir"; served serve-identify "$dir/identify.calldir"
                fi
            fi
        done
        [ "$(sqlite3 "$dir/db.sqlite" 'SELECT count(*) FROM t')" = "$size" ] || { log "sqlite row count is not $size"; exit 2; }
        hit=$(sed -n "$((size / 2))p" "$dir/numbers.txt")
        label=$(sqlite3 "$dir/db.sqlite" "SELECT label FROM t WHERE number = $hit")
        "$calldir" lookup --index "$dir/identify.calldir" "$hit" | grep -qF "$label" || { log "calldir does not answer '$label' for $hit"; exit 2; }
        [ "$(cdb -q "$dir/db.cdb" "$hit")" = "$label" ] || { log "cdb does not answer '$label' for $hit"; exit 2; }
        log "$name: one-shot lookups of $hit ($label), $runs runs each"
        shots=$(oneshot "$calldir lookup --index $dir/identify.calldir $hit" "$calldir lookup --index $dir/block.calldir $hit" \
            "sqlite3 $dir/db.sqlite 'SELECT label FROM t WHERE number = $hit'" "cdb -q $dir/db.cdb $hit")
        python3 - "$results" "$name" "$size" "$shots" "$dir" >"$dir/rows.txt" <<'EOF'
import os, statistics, sys
results, name, size, shots, folder = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].split(), sys.argv[5]
times = {}
for line in open(results):
    tool, wall, rss = line.split()
    times.setdefault(tool, ([], []))[0].append(float(wall))
    times[tool][1].append(int(rss) / 1024)
med = lambda tool, i: statistics.median(times[tool][i])
serve = lambda kind: " ".join(f"{med(f'serve-{kind}-{k}', 0):.0f}" if f"serve-{kind}-{k}" in times else "-" for k in ["get", "post"])
size_of = lambda f: os.path.getsize(os.path.join(folder, f))
print(name, "calldir", f"{med('identify', 0):.3f}", f"{med('identify', 1):.1f}", size_of("identify.calldir"), size,
      shots[0], f"{med('batch-identify', 0):.3f}", f"{med('sort', 0):.3f}", f"{med('sort', 1):.1f}", serve("identify"))
print(name, "calldir-block", f"{med('block', 0):.3f}", f"{med('block', 1):.1f}", size_of("block.calldir"), size,
      shots[1], f"{med('batch-block', 0):.3f}", "-", "-", serve("block"))
print(name, "sqlite", f"{med('sqlite', 0):.3f}", f"{med('sqlite', 1):.1f}", size_of("db.sqlite"), size, shots[2], "-", "-", "-", "- -")
print(name, "tinycdb", f"{med('cdb', 0):.3f}", f"{med('cdb', 1):.1f}", size_of("db.cdb"), size, shots[3], "-", "-", "-", "- -")
EOF
        cat "$dir/rows.txt" >>"$out/rows.txt"
    done
done
{
    echo "Generated $(date -u '+%Y-%m-%d %H:%M UTC') by \`$(basename "$0")\` (SIZES=\"$sizes\" FRACTIONS=\"$fractions\" ROUNDS=$rounds RUNS=$runs)."
    echo "Machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), Linux $(uname -r);" \
        "calldir $("$calldir" --version 2>/dev/null || echo "$calldir"), SQLite $(sqlite3 --version | cut -d' ' -f1), tinycdb $(dpkg-query -W -f='${Version}' tinycdb 2>/dev/null)," \
        "Faker $("$venv/bin/python" -c 'import faker; print(faker.VERSION)'); load average at the start $load_start, at the end $(cut -d' ' -f1 /proc/loadavg)."
    echo
    python3 "$root/Benchmarks/scripts/labels-table.py" "$out/rows.txt" "$queries"
} | tee "$out/labels.md"
