#!/usr/bin/env bash
# Identified vs blocked-only batch lookups: the same queries against an identification index and
# a blocking index of the same numbers, through `calldir lookup -` (wall and user seconds) and
# the daemon's POST /v1/lookup (wrk, 4 connections, 1,000 numbers a request; one event loop).
# Rounds interleave the binaries and indexes; medians are printed.
#
#   Benchmarks/scripts/identify-ratio.sh DIR BIN_DIR...
#
# DIR holds identify.calldir, block.calldir and queries-1000000.txt (labels.sh writes them in
# Benchmarks/out/labels/SIZE-FRACTION). Each BIN_DIR holds calldir (and calldir-serve for the
# daemon rows; DAEMON=0 skips them). ROUNDS (default 5). Running libFuzzer processes
# (release/Fuzz*) are paused while a measurement runs and resumed after.
set -euo pipefail
dir=$1; shift
script=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=wrk-rate.sh
source "$script/wrk-rate.sh"
raw=$(mktemp)
# shellcheck source=fuzz-pause.sh
source "$(dirname "$0")/fuzz-pause.sh"
trap 'fuzzers_resume; rm -f "$raw" "$raw.user"' EXIT
port=${PORT:-18577}
if [ "${DAEMON:-1}" = 1 ] && ! command -v wrk >/dev/null; then
    echo "[identify-ratio] installing wrk" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null
fi
for _ in $(seq "${ROUNDS:-5}"); do
    for bin in "$@"; do
        for kind in identify block; do
            fuzzers_pause
            # Wall time to the microsecond (time(1) rounds to 10 ms, a twentieth of a run here).
            start=$EPOCHREALTIME
            /usr/bin/time -f "%U" -o "$raw.user" "$bin/calldir" lookup --index "$dir/$kind.calldir" - \
                <"$dir/queries-1000000.txt" >/dev/null || true
            echo "$bin cli-$kind $(python3 -c "print(round($EPOCHREALTIME - $start, 6))") $(cat "$raw.user")" >>"$raw"
            fuzzers_resume
            [ "${DAEMON:-1}" = 1 ] && [ -x "$bin/calldir-serve" ] || continue
            serve_start "$bin/calldir" "$dir/$kind.calldir" "$port" || exit 2
            fuzzers_pause
            rate=$(wrk_rate "$port" "$script/batch.lua" 4 4s "$dir/queries-1000000.txt" 1000)
            fuzzers_resume
            serve_stop
            echo "$bin post-$kind $rate 0" >>"$raw"
        done
    done
done
python3 - "$raw" <<'PY'
import collections, statistics, sys
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    b, k, v, u = line.split(); d[(b, k)].append(float(v)); d[(b, k + "-user")].append(float(u))
for b in dict.fromkeys(b for b, _ in d):
    i, k = statistics.median(d[(b, "cli-identify")]), statistics.median(d[(b, "cli-block")])
    iu, ku = statistics.median(d[(b, "cli-identify-user")]), statistics.median(d[(b, "cli-block-user")])
    print(f"{b}: lookup - identify {i:.4f} s, block {k:.4f} s: {i / k:.2f}x (user {iu:.2f} / {ku:.2f} s: {iu / ku:.2f}x)")
    if (b, "post-identify") in d:
        pi, pk = statistics.median(d[(b, "post-identify")]), statistics.median(d[(b, "post-block")])
        print(f"{b}: POST identify {pi / 1e6:.2f} M numbers/s, block {pk / 1e6:.2f} M/s: {pk / pi:.2f}x")
PY
