#!/bin/sh
# Patch on the device path (docs/BENCHMARKS-LOG.md, "Deltas on the phone"): the French operator
# ranges (14.95M numbers) against the variant of device-update.sh (1% of its entries changed),
# and a 10M exact-number list with 1% churn each way (churn.py, as delta.sh). For each pair:
# diff, then `calldir patch` (the `Patcher.patch` call `IndexInstaller.installDelta` makes on a
# phone, temporaries in the output's folder) and `calldir verify` of the result (the install's
# full verification), each with wall time and peak RSS from /usr/bin/time -v; the patched index
# is compared with NEW byte for byte. Release build. Run from the package root (needs
# ../shared/realdata for the French pair). COUNT overrides 10000000.
set -eu
export CALLDIR_STATIC_LINK=1  # release executables link statically (Package.swift)
COUNT=${COUNT:-10000000}
out=Benchmarks/out/device-patch
mkdir -p "$out"
swift build -c release --product calldir >/dev/null && swift build -c release --product calldir-cli >/dev/null
calldir=$(pwd)/.build/release/calldir
measure() {  # label, command...: wall time and peak RSS (KB) from /usr/bin/time -v
    label=$1; shift
    /usr/bin/time -v "$@" >/dev/null 2>"$out/time.txt"
    printf '%s: %s (m:ss), peak RSS %s KB\n' "$label" \
        "$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$out/time.txt")" \
        "$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$out/time.txt")"
}
run_pair() {  # name, old index, new index
    $calldir diff -q "$2" "$3" -o "$out/$1.delta"
    echo "$1: OLD $(wc -c < "$2") bytes, NEW $(wc -c < "$3") bytes, delta $(wc -c < "$out/$1.delta") bytes"
    measure "$1 patch" $calldir patch -q "$2" "$out/$1.delta" -o "$out/$1-patched.calldir" --tmpdir "$out"
    measure "$1 verify NEW" $calldir verify "$out/$1-patched.calldir"
    cmp "$out/$1-patched.calldir" "$3" && echo "$1: patched index is NEW byte for byte"
}
measure "baseline (calldir inspect of a tiny index)" $calldir inspect Tests/CallDirReaderTests/Fixtures/tiny.calldir
fr=../shared/realdata/fr-arcep-operator-ranges.json
if [ -f "$fr" ]; then
    python3 Benchmarks/scripts/fr-variant.py "$fr" "$out/fr-variant.json"
    $calldir compile -q --skip-invalid --block "$fr" -o "$out/fr-old.calldir"
    $calldir compile -q --skip-invalid --block "$out/fr-variant.json" -o "$out/fr-new.calldir"
    run_pair fr "$out/fr-old.calldir" "$out/fr-new.calldir"
else
    echo "skipped the French pair: $fr is absent"
fi
[ -f "$out/churn-new.txt" ] || python3 Benchmarks/scripts/churn.py "$COUNT" "$out/churn-old.txt" "$out/churn-new.txt"
$calldir compile -q --block "$out/churn-old.txt" -o "$out/churn-old.calldir"
$calldir compile -q --block "$out/churn-new.txt" -o "$out/churn-new.calldir"
run_pair churn "$out/churn-old.calldir" "$out/churn-new.calldir"
