#!/bin/sh
# "Several extensions" in docs/BENCHMARKS.md: one list over several Call Directory extensions.
# The French operator ranges (14.95M numbers in 374 ranges) and the 1M labelled list
# (labels.sh's corpus) split by kind and by size into 4 shards; per extension its entries and
# requests, the launches to finish at 1 and 2 reloads per launch, what one failed request
# costs (the largest shard), and an update of one category (the labelled list with 1,000
# labels changed, categories "operators" and "callers"): what each extension is sent.
# Files go under Benchmarks/out/shards (git-ignored). Run from the package root.
set -eu
out=Benchmarks/out/shards
rm -rf "$out"; mkdir -p "$out"
swift build -c release --product calldir-cli >/dev/null
calldir=.build/release/calldir-cli
labels=Benchmarks/.corpus/labels-1000000-100-sorted.csv
[ -f "$labels" ] || { echo "shards.sh: run Benchmarks/scripts/labels.sh first (it writes $labels)" >&2; exit 2; }
fr=../shared/realdata/fr-arcep-operator-ranges.json
[ -f "$fr" ] || { echo "shards.sh: needs $fr (../shared)" >&2; exit 2; }
t() { /usr/bin/time -f "  [%e s, %M KB peak]" "$@"; }

$calldir compile -q --skip-invalid --block "$fr" -o "$out/fr.calldir"
$calldir compile -q --identify "$labels" -o "$out/labels.calldir"
# The labelled list with every 1,000th label changed: an update of one category.
awk -F, 'NR > 1 && NR % 1000 == 0 { print $1 ",Changed " NR; next } { print }' "$labels" > "$out/labels-v2.csv"
$calldir compile -q --identify "$out/labels-v2.csv" -o "$out/labels-v2.calldir"

for list in fr labels; do
    max=$($calldir inspect --json "$out/$list.calldir" | python3 -c 'import json,sys; print((json.load(sys.stdin)["deviceEntries"] + 3) // 4)')
    for rule in kind size; do
        extra=""; [ $rule = size ] && extra="--max-entries $max"
        echo "== $list by $rule $extra"
        # shellcheck disable=SC2086 # $extra is two words or none
        t $calldir shard --index "$out/$list.calldir" --by $rule $extra --extension-prefix com.example.Blocker -o "$out/$list-$rule" >/dev/null
        for n in 1 2; do
            t $calldir simulate --shards "$out/$list-$rule/shards.json" --reloads-per-launch $n
        done
    done
done
echo "== the unsharded lists, for comparison"
t $calldir simulate --index "$out/fr.calldir" | head -3
t $calldir simulate --index "$out/labels.calldir" | head -3

echo "== one category updated: callers v1 -> v2, operators unchanged"
$calldir shard --by category --category operators="$out/fr.calldir" --category callers="$out/labels.calldir" \
    --extension-prefix com.example.Blocker -o "$out/cat-v1" >/dev/null
$calldir shard --by category --category operators="$out/fr.calldir" --category callers="$out/labels-v2.calldir" \
    --extension-prefix com.example.Blocker -o "$out/cat-v2" >/dev/null
t $calldir simulate --shards "$out/cat-v2/shards.json" --from "$out/cat-v1/shards.json" --reloads-per-launch 1
echo "== the same update unsharded: one extension holding both"
$calldir compile -q --skip-invalid --block "$fr" --identify "$labels" -o "$out/both-v1.calldir"
$calldir compile -q --skip-invalid --block "$fr" --identify "$out/labels-v2.csv" -o "$out/both-v2.calldir"
t $calldir simulate --from "$out/both-v1.calldir" "$out/both-v2.calldir" | head -4
