#!/usr/bin/env bash
# Issue 33's compile target: `calldir compile` of TOTAL (default 10,000,000) numbers in
# libphonenumber's INTERNATIONAL format with --valid-only (so every number is parsed, then
# validity and type run), against the same numbers as plain E.164 digits without flags (the
# fast path), both with --sort --dedupe (the list is shuffled, and repeats) and --skip-invalid (Canada's 7-digit
# short codes are valid for libphonenumber, not E.164 numbers). The numbers cycle through
# out/formatted.tsv (normalize.sh writes it), so both
# lists hold the same duplicates. Release build, one core. Usage: compile-types.sh [TOTAL]
set -euo pipefail
cd "$(dirname "$0")/.."
total=${1:-10000000}
[ -s out/formatted.tsv ] || { echo "run Benchmarks/scripts/normalize.sh first (writes out/formatted.tsv)" >&2; exit 2; }
(cd .. && swift build -c release --product calldir-cli >/dev/null)
calldir=$(cd .. && swift build -c release --show-bin-path)/calldir-cli
awk -F'\t' '$1 == 0 { print $2 }' out/formatted.tsv > out/international.txt
tr -d ' +-' < out/international.txt > out/e164.txt
repeat() { awk -v total="$total" '{ line[NR] = $0 } END { for (i = 0; i < total; i++) print line[i % NR + 1] }' "$1"; }
repeat out/international.txt > out/formatted-10m.txt
repeat out/e164.txt > out/e164-10m.txt
run() {
    local name=$1; shift
    local start end
    start=$(date +%s.%N)
    taskset -c 0 "$calldir" compile --sort --dedupe --skip-invalid --output out/types.calldir "$@" >/dev/null
    end=$(date +%s.%N)
    echo "$name numbers=$total seconds=$(echo "$end - $start" | bc)"
}
run plain-e164 --international --block out/e164-10m.txt
run formatted-valid-only --valid-only --block out/formatted-10m.txt
