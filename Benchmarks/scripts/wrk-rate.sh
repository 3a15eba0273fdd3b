# Sourced by the scripts that time `calldir serve` with wrk (labels.sh, identify-ratio.sh).

# wait_for_serve PORT: until GET /healthz answers 200 (at most 60 s); 1 if it never does.
wait_for_serve() {
    for _ in $(seq 600); do curl -sf "http://127.0.0.1:$1/healthz" >/dev/null 2>&1 && return 0; sleep 0.1; done
    return 1
}

# wrk_rate PORT SCRIPT CONNECTIONS DURATION QUERIES BATCH: numbers answered per second by one
# wrk thread running SCRIPT (lookup.lua: one number a request; batch.lua: BATCH a request) on
# the QUERIES file; fails if any request failed.
wrk_rate() {
    wrk -t1 -c"$3" -s "$2" -d"$4" --timeout 5s "http://127.0.0.1:$1" -- "$5" "$6" | python3 -c '
import sys
line = next(l for l in sys.stdin if l.startswith("RESULT"))
f = dict(kv.split("=") for kv in line.split()[1:])
assert int(f["status_errors"]) + int(f["socket_errors"]) == 0, line
print(round(int(f["requests"]) * int(sys.argv[1]) / (int(f["duration_us"]) / 1e6)))' "$6"
}
