#!/bin/sh
# `calldir publish --keep 7` of day 8 against one `calldir diff` of days 7 -> 8, alternated
# seconds apart for each executables folder given (e.g. a before/after pair), ROUNDS times
# (default 3): wall, user and sys seconds and peak RSS from /usr/bin/time, the load average
# before each round. Each publish goes to a fresh copy of a day 7 feed folder, published once
# from OUT's day1..day7.calldir with the first folder's executables; OUT is the folder of an
# earlier `LABELLED=1 OUT=... feed-update.sh` run (default Benchmarks/out/feed), which also
# holds feed.key. Every run's delta files are compared by SHA-256 with the first's.
# Usage: publish-rounds.sh BIN_DIR [BIN_DIR...]   (issue 34 item 9, docs/BENCHMARKS-LOG.md)
set -eu
out=${OUT:-Benchmarks/out/feed}
rounds=${ROUNDS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for day in 1 2 3 4 5 6 7; do
    "$1/calldir" publish "$out/day$day.calldir" --feed "$work/feed7" --key "$out/feed.key" --keep 7 >/dev/null
done
for round in $(seq "$rounds"); do
    echo "round $round, load $(cut -d' ' -f1-3 /proc/loadavg)"
    for bin in "$@"; do
        /usr/bin/time -f "  diff    $bin: %e s wall, %U s user, %S s sys, %M KB" \
            "$bin/calldir" diff -q "$out/day7.calldir" "$out/day8.calldir" -o "$work/one.delta"
        rm -rf "$work/feed" && cp -r "$work/feed7" "$work/feed" && sync
        /usr/bin/time -f "  publish $bin: %e s wall, %U s user, %S s sys, %M KB" \
            "$bin/calldir" publish "$out/day8.calldir" --feed "$work/feed" --key "$out/feed.key" --keep 7 >/dev/null
        sums=$(sha256sum "$work"/feed/delta/* | cut -d' ' -f1 | sort | sha256sum | cut -c1-16)
        [ -f "$work/sums" ] || echo "$sums" > "$work/sums"
        [ "$sums" = "$(cat "$work/sums")" ] || echo "  DELTAS DIFFER from the first run's"
        sleep 2
    done
done
