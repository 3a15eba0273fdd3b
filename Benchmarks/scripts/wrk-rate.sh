# Sourced by the scripts that time `calldir serve` with wrk (labels.sh, identify-ratio.sh,
# compare-builds.sh).

# wait_for_serve PORT: until GET /healthz answers 200 (at most 60 s); 1 if it never does.
wait_for_serve() {
    for _ in $(seq 600); do curl -sf "http://127.0.0.1:$1/healthz" >/dev/null 2>&1 && return 0; sleep 0.1; done
    return 1
}

# serve_start CALLDIR INDEX PORT: `calldir serve --threads 1` on INDEX in the background, its
# pid in $serve_pid and its stderr in $serve_log (default Benchmarks/out/serve.log); returns once
# it answers. Fails, saying why, when another process already answers on PORT (it would be
# measured instead) or when the server does not start.
serve_start() {
    if curl -s "http://127.0.0.1:$3/healthz" >/dev/null 2>&1; then echo "port $3 is in use: set PORT" >&2; return 1; fi
    serve_log=${serve_log:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/out/serve.log}
    mkdir -p "$(dirname "$serve_log")"
    "$1" serve --index "$2" --port "$3" --threads 1 2>"$serve_log" &
    serve_pid=$!
    if ! wait_for_serve "$3" || ! kill -0 "$serve_pid" 2>/dev/null; then
        echo "calldir serve did not start:" >&2; cat "$serve_log" >&2; return 1
    fi
}

# serve_stop: SIGTERM to the server serve_start started, then wait for it.
serve_stop() { kill -TERM "$serve_pid"; wait "$serve_pid" || true; }

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
