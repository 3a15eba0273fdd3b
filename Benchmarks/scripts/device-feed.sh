#!/bin/sh
# The device feed figures of docs/BENCHMARKS-LOG.md ("Device feed"): generates the lists once
# (under Benchmarks/out/device, git-ignored), compiles them with the release calldir, then runs
# `calldir-feed` ROUNDS times (default 5) per index, pinned to one core.
# Run from the package root: Benchmarks/scripts/device-feed.sh   (needs ../shared/realdata for fr)
set -eu
export CALLDIR_STATIC_LINK=1  # release executables link statically (Package.swift)
ROUNDS=${ROUNDS:-5}
CORE=${CORE:-1}
root=$(pwd)
out=Benchmarks/out/device
mkdir -p "$out"
swift build -c release --product calldir >/dev/null && swift build -c release --product calldir-cli >/dev/null
(cd Benchmarks && swift build -c release --product calldir-gen >/dev/null && swift build -c release --product calldir-feed >/dev/null)
gen=Benchmarks/.build/release/calldir-gen
feed=Benchmarks/.build/release/calldir-feed
calldir=.build/release/calldir
[ -f "$out/fr.calldir" ] || $calldir compile -q --skip-invalid --block ../shared/realdata/fr-arcep-operator-ranges.json -o "$out/fr.calldir"
[ -f "$out/block-10M.calldir" ] || { $gen list --count 10000000 -o "$out/l.txt"; $calldir compile -q --block "$out/l.txt" -o "$out/block-10M.calldir"; }
[ -f "$out/identify-10M.calldir" ] || { $gen list --count 10000000 --labels -o "$out/l.txt"; $calldir compile -q --identify "$out/l.txt" -o "$out/identify-10M.calldir"; }
[ -f "$out/block-100M.calldir" ] || { $gen list --count 100000000 -o "$out/l.txt"; $calldir compile -q --block "$out/l.txt" -o "$out/block-100M.calldir"; }
rm -f "$out/l.txt"
for index in fr block-10M identify-10M block-100M; do
    resume=""
    [ "$index" = block-100M ] && resume="--resume-at 90000000"
    i=0
    while [ $i -lt "$ROUNDS" ]; do
        taskset -c "$CORE" $feed "$out/$index.calldir" $resume
        i=$((i + 1))
    done
done
for index in fr block-10M; do
    taskset -c "$CORE" $calldir simulate --index "$out/$index.calldir" --request-size 1999999 | tail -2
done
