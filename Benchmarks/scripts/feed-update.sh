#!/bin/sh
# The update feed's figures of docs/BENCHMARKS-LOG.md ("Signed update feed", issue 25): a COUNT
# (default 10,000,000) number blocking list published daily for 8 days with 1% churn each way
# (churn.py, then feed-chain.py), each day with `calldir publish --keep 7`; then:
#  - publish time of day 8 (7 deltas to make) against one `calldir diff` of days 7 -> 8;
#  - a follower at day 7 running `calldir update` against a local HTTP server: bytes it
#    downloaded against the delta's size and the full index, wall time and peak RSS; beside it
#    the process floor (`calldir-serve keygen`, the same executable doing almost nothing) and
#    `calldir patch` of the same delta alone (the patch's share of update's RSS).
# LABELLED=1: the list is COUNT - LABELS blocked numbers plus LABELS (default 1,000,000)
# labelled ones (labels-corpus.py, 10% distinct labels, Faker; issue 34 item 9), both with 1%
# churn a day. Run from the package root. BUILD=debug uses the debug build (default: release,
# static). BIN=DIR runs the executables in DIR instead (another build, e.g. a before/after
# pair), building nothing.
set -eu
export CALLDIR_STATIC_LINK=1  # release executables link statically (Package.swift)
COUNT=${COUNT:-10000000}
BUILD=${BUILD:-release}
LABELLED=${LABELLED:-0}
LABELS=${LABELS:-1000000}
out=${OUT:-Benchmarks/out/feed}
rm -rf "$out" && mkdir -p "$out"
if [ -n "${BIN:-}" ]; then
    bin=$BIN
else
    [ "$BUILD" = release ] && swift build -c release >/dev/null
    bin=$(pwd)/.build/$BUILD
fi
measure() {  # label, command...: prints wall seconds and peak RSS
    label=$1; shift
    /usr/bin/time -f "$label %e s %M KB" "$@" 2>&1 >/dev/null | grep "^$label"
}
$bin/calldir keygen -o "$out/feed.key" > "$out/feed.pub" 2>/dev/null
blocked=$COUNT
if [ "$LABELLED" = 1 ]; then
    blocked=$((COUNT - LABELS))
    corpus=$(python3 Benchmarks/scripts/labels-corpus.py --count "$LABELS" --distinct 0.1 \
        -o Benchmarks/.corpus/feed-labels-$LABELS.csv)
    cp "$corpus" "$out/day1.csv"
fi
python3 Benchmarks/scripts/churn.py "$blocked" "$out/day1.txt" "$out/unused.txt"
rm "$out/unused.txt"
for day in 1 2 3 4 5 6 7 8; do
    identify=
    if [ $day -gt 1 ]; then
        python3 Benchmarks/scripts/feed-chain.py $day "$out/day$((day - 1)).txt" "$out/day$day.txt"
        [ "$LABELLED" = 1 ] && python3 Benchmarks/scripts/feed-chain.py $day "$out/day$((day - 1)).csv" "$out/day$day.csv"
    fi
    [ "$LABELLED" = 1 ] && identify="--identify $out/day$day.csv"
    # shellcheck disable=SC2086  # $identify is two words or none
    $bin/calldir compile -q --block "$out/day$day.txt" $identify -o "$out/day$day.calldir"
    if [ $day -eq 8 ]; then
        measure "diff day 7 -> 8" $bin/calldir diff -q "$out/day7.calldir" "$out/day8.calldir" -o "$out/one.delta"
        # The same publish with every delta diffed (as before deltas were composed): a copy of
        # the folder without day 7's deltas, so there is nothing to compose from.
        cp -r "$out/feed" "$out/feed-diffed" && rm "$out"/feed-diffed/delta/*
        measure "publish day 8 --keep 7, all diffed" $bin/calldir publish "$out/day8.calldir" --feed "$out/feed-diffed" \
            --key "$out/feed.key" --keep 7
        /usr/bin/time -f "publish day 8 --keep 7 %e s %M KB" -o "$out/publish.time" $bin/calldir publish "$out/day8.calldir" \
            --feed "$out/feed" --key "$out/feed.key" --keep 7 --json > "$out/publish.json"
        cat "$out/publish.time"
        python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); print("publish day 8: %d new deltas, %d composed from day 7'"'"'s" % (p["newDeltas"], p.get("composedDeltas", 0)))' "$out/publish.json"
        python3 -c 'import json,sys; a,b=[[d["sha256"] for d in json.load(open(p))["deltas"]] for p in sys.argv[1:]]; print("composed deltas are the diffed ones byte for byte (same SHA-256s)" if a==b else "DELTAS DIFFER: %s %s" % (a,b))' \
            "$out/feed/manifest.json" "$out/feed-diffed/manifest.json"
    else
        $bin/calldir publish "$out/day$day.calldir" --feed "$out/feed" --key "$out/feed.key" --keep 7 >/dev/null
    fi
done
cp "$out/day7.calldir" "$out/follower.calldir"
python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print("day 8 manifest: %d deltas, index %d bytes, deltas %s bytes" % (len(m["deltas"]), m["index"]["size"], [d["size"] for d in m["deltas"]]))' "$out/feed/manifest.json"
# The follower: the day 7 index, as `calldir update` left it (its state says serial 7).
python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$out/feed" > "$out/http.log" 2>&1 &
server=$!
trap 'kill $server' EXIT
port=
for _ in $(seq 60); do  # a loaded machine may take seconds to start it
    port=$(grep -o 'port [0-9]*' "$out/http.log" | grep -o '[0-9]*') && break
    sleep 0.5
done
cp "$out/feed/history/7.json" "$out/day7.manifest"
sha7=$(sha256sum "$out/day7.calldir" | cut -d' ' -f1)
printf '{"format":1,"serial":7,"sha256":"%s","keyId":"","manifestCreated":"2026-01-01T00:00:00Z","installed":"2026-01-01T00:00:00Z"}\n' "$sha7" > "$out/follower.calldir.feed-state"
/usr/bin/time -f "update day 7 -> 8 %e s %M KB" -o "$out/update.time" $bin/calldir update --feed "http://127.0.0.1:$port" \
    --trusted-key "$(cat "$out/feed.pub")" --index "$out/follower.calldir" --json > "$out/update.json"
cat "$out/update.time" "$out/update.json"
cmp "$out/follower.calldir" "$out/day8.calldir" && echo "the follower's index is day 8 byte for byte"
measure "floor: calldir-serve keygen" $bin/calldir-serve keygen -o "$out/floor.key"
measure "patch day 7 -> 8 alone" $bin/calldir patch "$out/day7.calldir" "$out/one.delta" -o "$out/patched.calldir"
echo "requests: $(grep -o '"GET [^ ]*' "$out/http.log" | tr '\n' ' ')"
echo "one diff day 7 -> 8: $(stat -c %s "$out/one.delta") bytes; full index: $(stat -c %s "$out/day8.calldir") bytes"
