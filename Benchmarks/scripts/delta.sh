#!/bin/sh
# The delta figures of docs/BENCHMARKS-LOG.md ("Incremental updates"): two 10M blocking lists with
# 1% churn each way (Benchmarks/scripts/churn.py), and the FTC complaint list as a daily update
# (its first two thirds as "yesterday", its last two thirds as "today"). For each pair: compile
# time of NEW, diff time, delta bytes, patch time (and peak RSS), and a byte comparison of the
# patched index with NEW. Run from the package root; COUNT overrides 10000000.
set -eu
export CALLDIR_STATIC_LINK=1  # release executables link statically (Package.swift)
COUNT=${COUNT:-10000000}
out=Benchmarks/out/delta
mkdir -p "$out"
swift build -c release --product calldir >/dev/null && swift build -c release --product calldir-cli >/dev/null
calldir=$(pwd)/.build/release/calldir
measure() {  # label, command...: prints wall seconds and peak RSS
    label=$1; shift
    /usr/bin/time -f "$label %e s %M KB" "$@" 2>&1 >/dev/null | grep "^$label"
}
run_pair() {  # name, compile flags, old list, new list
    name=$1 flags=$2
    $calldir compile -q $flags --block "$3" -o "$out/$name-old.calldir"
    measure "$name compile NEW" $calldir compile -q $flags --block "$4" -o "$out/$name-new.calldir"
    measure "$name diff" $calldir diff -q "$out/$name-old.calldir" "$out/$name-new.calldir" -o "$out/$name.delta"
    measure "$name patch" $calldir patch -q "$out/$name-old.calldir" "$out/$name.delta" -o "$out/$name-patched.calldir"
    cmp "$out/$name-patched.calldir" "$out/$name-new.calldir" && echo "$name patched index is NEW byte for byte"
    $calldir inspect --json "$out/$name.delta" | python3 -c '
import json, sys, os
d = json.load(sys.stdin)
changed = d["removedBlocked"] + d["addedBlocked"] + d["removedIdentified"] + d["addedIdentified"]
print("%s delta: %d bytes, %d changed entries, %.2f bytes per changed entry; NEW index %d bytes"
      % (sys.argv[1], d["bytes"], changed, d["bytes"] / max(changed, 1), os.path.getsize(sys.argv[2])))' "$name" "$out/$name-new.calldir"
}
[ -f "$out/churn-new.txt" ] || python3 Benchmarks/scripts/churn.py "$COUNT" "$out/churn-old.txt" "$out/churn-new.txt"
run_pair churn "" "$out/churn-old.txt" "$out/churn-new.txt"
ftc=../shared/realdata/ftc-dnc-complaints-90days.csv
if [ -f "$ftc" ]; then
    rows=$(($(wc -l < "$ftc") - 1))
    tail -n +2 "$ftc" | head -n $((rows * 2 / 3)) > "$out/ftc-yesterday.txt"
    tail -n +2 "$ftc" | tail -n $((rows * 2 / 3)) > "$out/ftc-today.txt"
    run_pair ftc "--sort --dedupe --skip-invalid" "$out/ftc-yesterday.txt" "$out/ftc-today.txt"
else
    echo "skipped the FTC update: $ftc is absent"
fi
