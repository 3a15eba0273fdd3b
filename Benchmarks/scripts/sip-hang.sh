#!/usr/bin/env bash
# What a hung lookup daemon costs the calls through Kamailio (docs/kamailio/calldir.cfg), with
# and without the configuration's circuit breaker. sipp places calls from an unknown caller at
# RATE calls/s for SECONDS s; HANG_AT s in, the daemon is frozen (SIGSTOP: it keeps its sockets,
# the kernel accepts connections and queues requests, nothing answers, as with a process stuck
# on a lock or swapped out) for HANG s, then resumed (SIGCONT). Per configuration: calls placed,
# calls lost (failed in sipp: no final answer within its retransmissions), calls answered more
# than 1 s and 2 s after their INVITE, the slowest, and the lines Kamailio logged.
# The daemon runs with the command docs/SERVE.md gives for Kamailio (its --index and --port
# replaced), as KamailioSIPTests does.
# Usage: Benchmarks/scripts/sip-hang.sh [RATE] [SECONDS]
#   RATE=200 SECONDS=10 HANG_AT=2 HANG=4 ROUNDS=1 BUILD=debug (or release); ONLY_BREAKER=1 skips the run without
#   BLOCKED=1: the calls come from a blocked caller and expect 603, so "lost" counts the calls that
#   rang (or got 503) instead: the screening the hang cost. DEFINES='-A CALLDIR_BREAK_SECONDS=2 ...'
#   are passed to every Kamailio run.
# Needs: kamailio, kamailio-utils-modules, sip-tester (scripts/setup).
set -euo pipefail
cd "$(dirname "$0")/../.."
rate=${1:-200}; seconds=${2:-10}; hang_at=${HANG_AT:-2}; hang=${HANG:-4}; rounds=${ROUNDS:-1}
build=${BUILD:-debug}
swift build -c "$build" --product calldir-serve >/dev/null
swift build -c "$build" --product calldir >/dev/null
bin=.build/$build
work=$(mktemp -d /tmp/calldir-sip-hang.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -CONT "$p" 2>/dev/null || true; kill -TERM -- "-$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
start() { setsid "$@" >>"$work/$1.log" 2>&1 & pids+=($!); }

printf '18005555555\n' >"$work/b.txt"
"$bin/calldir" compile -q --block "$work/b.txt" -o "$work/i.calldir"
# The documented command line: the one line of docs/SERVE.md marked as the cfg's daemon.
serve=$(grep -m1 '# the daemon of docs/kamailio/calldir.cfg' docs/SERVE.md | sed 's/#.*//')
[ -n "$serve" ] || { echo "sip-hang: no daemon command in docs/SERVE.md" >&2; exit 2; }
read -r -a args <<<"$(sed -E "s|^ *calldir serve ||; s|--index [^ ]+|--index $work/i.calldir|; s|--port [0-9]+|--port 38780|" <<<"$serve")"
echo "calldir serve ${args[*]}"
setsid "$bin/calldir" serve "${args[@]}" >>"$work/serve.log" 2>&1 &
serve_pid=$!; pids+=($serve_pid)
start sipp -sf docs/kamailio/callee.xml -i 127.0.0.1 -p 38770 -nostdin
sleep 1

run() {  # $1: label, $2...: extra kamailio defines
  local label=$1; shift
  : >"$work/kamailio.log"
  start kamailio -f docs/kamailio/calldir.cfg -DD -E -m 512 -Y "$work" -l udp:127.0.0.1:38760 \
    -A 'CALLDIR="calldir=>http://127.0.0.1:38780/v1/lookup"' -A 'NEXT_HOP="sip:127.0.0.1:38770"' ${DEFINES:-} "$@"
  local kam=${pids[-1]}
  sleep 1
  rm -f "$work"/*_rtt.csv "$work/stat.csv"
  local scenario=call-answered.xml caller=12125550000
  [ -z "${BLOCKED:-}" ] || { scenario=call-declined.xml; caller=18005555555; }
  (cd "$work" && sipp 127.0.0.1:38760 -sf "$OLDPWD/docs/kamailio/$scenario" -key caller "$caller" \
    -s reception -i 127.0.0.1 -p 38790 -r "$rate" -m $((rate * seconds)) -l 100000 -nostdin \
    -recv_timeout 40000 -trace_stat -stf stat.csv -trace_rtt -rtt_freq 1 >/dev/null 2>&1) &
  local sipp=$!
  sleep "$hang_at"; kill -STOP "$serve_pid"; sleep "$hang"; kill -CONT "$serve_pid"
  wait "$sipp" || true
  local ok failed
  ok=$(tail -1 "$work/stat.csv" | awk -F';' '{print $16}')
  failed=$(tail -1 "$work/stat.csv" | awk -F';' '{print $18}')
  # Calls not screened: the breaker's recovery line counts those it skipped; every failed
  # lookup is a call not screened too (one log line each until the breaker opens).
  local skipped failures
  skipped=$( (grep -o 'and [0-9]* calls were not screened' "$work/kamailio.log" || true) | awk '{s += $2} END {print s + 0}')
  failures=$(grep -c 'calldir lookup failed' "$work/kamailio.log" || true)
  awk -F';' -v l="$label" -v n=$((rate * seconds)) -v ok="$ok" -v f="$failed" -v u=$((skipped + failures)) \
      -v lines="$(grep -c calldir "$work/kamailio.log" || true)" '
    NR > 1 { if ($2 > 1000) a++; if ($2 > 2000) b++; if ($2 > max) max = $2 }
    END { printf "%-16s %d calls: %d ok, %d lost; answered after > 1 s: %d, > 2 s: %d; slowest %.2f s; %d not screened; %d log lines\n",
                 l, n, ok, f, a, b, max / 1000, u, lines }' "$work"/*_rtt.csv
  kill -TERM -- "-$kam"; wait "$kam" 2>/dev/null || true
  sleep 1
}
for r in $(seq "$rounds"); do
  run "with breaker"
  [ -n "${ONLY_BREAKER:-}" ] || run "without breaker" -A CALLDIR_BREAK_AFTER=1000000000
done
