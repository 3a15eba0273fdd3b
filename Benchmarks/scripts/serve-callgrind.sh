#!/usr/bin/env bash
# Instructions per request for `calldir serve`, counted by valgrind's callgrind: repeatable
# whatever else the machine is doing, unlike requests/s on shared cores. Compares single GETs
# against the constant-response baseline on the same pipeline, and batch POSTs per number.
# Each figure is (instructions after N2 requests - after N1) / (N2 - N1), so start-up and
# index verification cancel out. One event-loop thread; the client is a Python keep-alive loop.
#
#   Benchmarks/scripts/serve-callgrind.sh [COUNT]     (default 1,000,000 entries)
set -euo pipefail
export CALLDIR_STATIC_LINK=1  # release executables link statically (Package.swift)
count=${1:-1000000}
root=$(cd "$(dirname "$0")/../.." && pwd)
scripts=$root/Benchmarks/scripts
work=$root/Benchmarks/out/serve-load
mkdir -p "$work"
command -v valgrind >/dev/null || { apt-get update -qq && apt-get install -y -qq valgrind >/dev/null; }
(cd "$root" && swift build -c release 2>&1 | grep -E "error|Build" >&2) || true
# valgrind 3.19 cannot read the DWARF 5 that Swift 6 emits: profile a copy without debug info.
daemon=$work/calldir-serve-nodebug
objcopy --strip-debug "$root/.build/release/calldir-serve" "$daemon"
bin=$root/.build/release/calldir
index=$work/index-$count.calldir
if [ ! -s "$index" ]; then
    python3 "$scripts/gen-numbers.py" lists "$count" "$work/block.txt" "$work/identify.txt"
    "$bin" compile -q --block "$work/block.txt" --identify "$work/identify.txt" -o "$index"
    rm -f "$work/block.txt" "$work/identify.txt"
fi
sample=$work/sample-$count.txt
[ -s "$sample" ] || python3 "$scripts/gen-numbers.py" sample "$count" 42 20000 > "$sample"

# instructions MODE REQUESTS -> total instructions of a server run answering REQUESTS requests
instructions() {
    local mode=$1 n=$2 port=$((19000 + RANDOM % 1000)) server=$daemon extra=(--poll-interval 0)
    if [ "$mode" = constant ]; then  # the baseline lives in the Benchmarks package
        (cd "$root/Benchmarks" && swift build -c release --product calldir-serve-constant >/dev/null 2>&1)
        server=$root/Benchmarks/.build/release/calldir-serve-constant extra=()
    fi
    local out=$work/callgrind.$mode.$n
    valgrind --tool=callgrind --callgrind-out-file="$out" "$server" --index "$index" --port "$port" \
        --threads 1 "${extra[@]}" 2>/dev/null &
    local pid=$!
    for _ in $(seq 1 600); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.2; done
    python3 - "$port" "$n" "$sample" "$mode" <<'PY'
import http.client, sys
port, n, sample, mode = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
numbers = [line.strip() for line in open(sample)]
bodies = ["\n".join(numbers[i:i + 1000]) for i in range(0, 10000, 1000)]
c = http.client.HTTPConnection("127.0.0.1", port)
for i in range(n):
    if mode == "batch":
        c.request("POST", "/v1/lookup", body=bodies[i % len(bodies)])
    else:
        c.request("GET", "/v1/lookup/" + numbers[i % len(numbers)])
    r = c.getresponse(); r.read()
    assert r.status == 200, r.status
PY
    kill -TERM "$pid"; wait "$pid" || true
    awk '/^totals:|^summary:/ {print $2; exit}' "$out"
}

per_request() {  # per_request MODE N1 N2
    local a b
    a=$(instructions "$1" "$2"); b=$(instructions "$1" "$3")
    echo $(( (b - a) / ($3 - $2) ))
}
single=$(per_request lookup 2000 12000)
constant=$(per_request constant 2000 12000)
batch=$(per_request batch 10 60)
echo "instructions per request, ${count}-entry index, release build, 1 event-loop thread:"
echo "  GET /v1/lookup/{n}:           $single"
echo "  constant response (baseline): $constant"
echo "  baseline / single = $(( 100 * constant / single ))%: the share of the baseline's throughput a CPU-bound lookup server keeps"
echo "  POST /v1/lookup, 1000/req:    $batch  ($(( batch / 1000 )) per number)"
