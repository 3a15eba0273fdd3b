#!/usr/bin/env bash
# Calls per second through Kamailio (docs/kamailio/calldir.cfg) with and without the calldir
# lookup: sipp places CALLS calls (INVITE, 200, ACK, BYE, 200) from an unknown caller, so each
# lookup answers "allow" and the call goes on to a sipp callee, at most LIMIT at once, as fast
# as they complete; rounds alternate between the two configurations.
# Usage: Benchmarks/scripts/sip-load.sh [CALLS]   (ROUNDS=3 LIMIT=50 by default)
# Needs: kamailio, kamailio-utils-modules, sip-tester (scripts/setup), a release build.
set -euo pipefail
export CALLDIR_STATIC_LINK=1  # release executables link statically (Package.swift)
cd "$(dirname "$0")/../.."
calls=${1:-10000}; rounds=${ROUNDS:-3}; limit=${LIMIT:-50}
swift build -c release --product calldir-serve >/dev/null
swift build -c release --product calldir >/dev/null && swift build -c release --product calldir-cli >/dev/null
work=$(mktemp -d /tmp/calldir-sip-load.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -TERM -- "-$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
start() { setsid "$@" >>"$work/log" 2>&1 & pids+=($!); }

printf '18005555555\n' >"$work/b.txt"
.build/release/calldir compile -q --block "$work/b.txt" -o "$work/i.calldir"
start .build/release/calldir-serve --index "$work/i.calldir" --port 38580 --threads 1
start sipp -sf docs/kamailio/callee.xml -i 127.0.0.1 -p 38570 -nostdin
sleep 1
run() {  # $1: label, $2...: extra kamailio defines
  local label=$1; shift
  start kamailio -f docs/kamailio/calldir.cfg -DD -E -m 512 -Y "$work" -l udp:127.0.0.1:38560 \
    -A 'CALLDIR="calldir=>http://127.0.0.1:38580/v1/lookup"' -A 'NEXT_HOP="sip:127.0.0.1:38570"' "$@"
  local kam=${pids[-1]}
  sleep 1
  local t0 t1
  t0=$(date +%s.%N)
  sipp 127.0.0.1:38560 -sf docs/kamailio/call-answered.xml -key caller 12125550000 -s reception \
    -i 127.0.0.1 -p 38590 -m "$calls" -l "$limit" -r 100000 -nostdin -timeout 120s \
    -trace_stat -stf "$work/stat.csv" >/dev/null 2>&1 || true
  t1=$(date +%s.%N)
  local ok failed
  ok=$(tail -1 "$work/stat.csv" | awk -F';' '{print $16}')   # SuccessfulCall(C)
  failed=$(tail -1 "$work/stat.csv" | awk -F';' '{print $18}') # FailedCall(C)
  awk -v l="$label" -v n="$ok" -v f="$failed" -v a="$t0" -v b="$t1" \
    'BEGIN { printf "%-16s %6d calls ok, %d failed, %.2f s, %.0f calls/s\n", l, n, f, b - a, n / (b - a) }'
  kill -TERM -- "-$kam"; wait "$kam" 2>/dev/null || true
  rm -f "$work/stat.csv"
}
for r in $(seq "$rounds"); do
  run "with lookup"
  run "without lookup" -A WITHOUT_CALLDIR
done
