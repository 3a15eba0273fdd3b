#!/usr/bin/env bash
# Before and after, for any change to a hot path: two builds run in turn on the same files,
# and every figure that moved by more than THRESHOLD percent the wrong way is flagged. A change
# that keeps every byte of output can still cost speed: daa9ba0, a readability mend checked for
# identical replies only, slowed the daemon's POSTs by 40% (docs/BENCHMARKS-LOG.md).
#
#   Benchmarks/scripts/compare-builds.sh BEFORE_DIR AFTER_DIR
#
# Each DIR holds calldir, calldir-cli and calldir-serve, as a release build's .build/release
# does (build BEFORE in a second checkout, or copy its binaries aside before changing the code;
# build both with CALLDIR_STATIC_LINK=1 set, as the other scripts do: static executables).
# Files: the 1M-entry, 100%-distinct label corpus of labels.sh (run
# `SIZES=1000000 FRACTIONS=1.0 Benchmarks/scripts/labels.sh` once to make it).
# Figures, each the median of ROUNDS (default 5) rounds that alternate the builds:
#   compile         calldir compile --identify of the sorted CSV: wall s, peak RSS MiB
#   compile --sort  the same of the shuffled CSV with --sort --memory 64M
#   lookup -        1M queries against the identification index and the blocking index (wall s)
#   POST, GET       the daemon (--threads 1) on the identification index, wrk as labels.sh runs
#                   it: POSTs of 1,000 numbers (4 connections), single GETs (64 connections)
#   one-shot        one `calldir lookup --index INDEX NUMBER` (hyperfine -N, median of RUNS=100),
#                   and the same number formatted (`+1 (569) 496-4966`)
# Issue 46's paths, each beside its fast path so that a regression of either shows:
#   lookup - identify / block   the ratio of the two `lookup -` runs of a round
#   --sort --dedupe repeats     compile --sort --dedupe of the shuffled CSV with 200,000 of its
#                               rows again (repeats, same labels)
#   --valid-only formatted      compile --valid-only --sort --dedupe --skip-invalid of 1M rows
#                               cycling through normalize.sh's INTERNATIONAL-format numbers
#                               (out/formatted.tsv), and of the same numbers as E.164 digits
#                               (--international: their fast path); skipped, with a note, when
#                               out/formatted.tsv is missing
# Environment: ROUNDS, RUNS, DURATION (per wrk run, default 4s), THRESHOLD (default 5), PORT
# (18590), COMPILE_THRESHOLD (default 15, for the compiles' times: 0.2-0.3 s each, they move by
# 10-20% from run to run on this 2-core VM, where `lookup -` and the daemon move by about 3%).
# About 40 s a round. Running libFuzzer processes (release/Fuzz*) are paused while a figure is
# measured.
# Exit status: 0, or 1 when some figure got worse by more than its threshold.
set -euo pipefail
[ $# -eq 2 ] || { sed -n '2,36p' "$0" >&2; exit 2; }
before=$(cd "$1" && pwd) after=$(cd "$2" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=wrk-rate.sh
source "$root/Benchmarks/scripts/wrk-rate.sh"
dir=$root/Benchmarks/out/labels/1000000-100
corpus=$root/Benchmarks/.corpus/labels-1000000-100
for file in "$dir/identify.calldir" "$dir/block.calldir" "$dir/queries-1000000.txt" "$corpus-sorted.csv" "$corpus-shuffled.csv"; do
    [ -f "$file" ] || { echo "missing $file: run SIZES=1000000 FRACTIONS=1.0 Benchmarks/scripts/labels.sh first" >&2; exit 2; }
done
for b in "$before" "$after"; do
    for tool in calldir calldir-cli calldir-serve; do
        [ -x "$b/$tool" ] || { echo "missing $b/$tool" >&2; exit 2; }
    done
done
need=()
command -v wrk >/dev/null || need+=(wrk)
command -v hyperfine >/dev/null || need+=(hyperfine)
[ -x /usr/bin/time ] || need+=(time)
if [ ${#need[@]} -gt 0 ]; then
    echo "[compare-builds] installing ${need[*]}" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

port=${PORT:-18590}
raw=$(mktemp) scratch=$(mktemp -d)
# The repeats list: the shuffled CSV, then 200,000 of its rows again.
{ cat "$corpus-shuffled.csv"; sed -n '2,200001p' "$corpus-shuffled.csv"; } >"$scratch/repeats.csv"
formatted=$root/Benchmarks/out/formatted.tsv
if [ -s "$formatted" ]; then
    cycle() { awk -v total=1000000 '{ line[NR] = $0 } END { for (i = 0; i < total; i++) print line[i % NR + 1] }'; }
    awk -F'\t' '$1 == 0 { print $2 }' "$formatted" | cycle >"$scratch/formatted.txt"
    tr -d ' +-' <"$scratch/formatted.txt" >"$scratch/e164.txt"
else
    echo "[compare-builds] no $formatted (Benchmarks/scripts/normalize.sh writes it): no --valid-only rows" >&2
fi
# Timed as installed: copies. A binary just written by the linker sits in the page cache in
# small pieces, which cost a one-shot lookup ~0.2 ms more (oneshot.sh) and a compile ~10% more.
for b in before after; do
    mkdir "$scratch/$b"
    cp "${!b}/calldir" "${!b}/calldir-cli" "${!b}/calldir-serve" "$scratch/$b/"
done
# shellcheck source=fuzz-pause.sh
source "$(dirname "$0")/fuzz-pause.sh"
trap 'fuzzers_resume; rm -rf "$raw" "$scratch"' EXIT
record() { echo "$1|$2|$3" >>"$raw"; }  # build, figure, value

# timed BUILD NAME COMMAND...: records the wall s (to the microsecond: time(1) rounds to 10 ms,
# a twentieth of a 1M compile) and peak RSS MiB of COMMAND.
timed() {
    local build=$1 name=$2; shift 2
    fuzzers_pause
    local start=$EPOCHREALTIME
    /usr/bin/time -f "%M" -o "$scratch/time" "$@" >/dev/null
    local end=$EPOCHREALTIME
    fuzzers_resume
    record "$build" "$name, s" "$(python3 -c "print(round($end - $start, 4))")"
    record "$build" "$name, peak RSS MiB" "$(python3 -c "print(round($(tail -1 "$scratch/time") / 1024, 1))")"
}

declare -A seconds
for round in $(seq "${ROUNDS:-5}"); do
    echo "[compare-builds] round $round" >&2
    for build in before after; do
        bin=$scratch/$build
        timed "$build" "compile" "$bin/calldir" compile -q --identify "$corpus-sorted.csv" -o "$scratch/index.calldir"
        timed "$build" "compile --sort" "$bin/calldir" compile -q --sort --memory 64M --identify "$corpus-shuffled.csv" \
            -o "$scratch/index.calldir"
        timed "$build" "compile --sort --dedupe, repeats" "$bin/calldir" compile -q --sort --dedupe --memory 64M \
            --identify "$scratch/repeats.csv" -o "$scratch/index.calldir"
        if [ -s "$formatted" ]; then
            timed "$build" "compile --valid-only, formatted" "$bin/calldir" compile -q --sort --dedupe --skip-invalid --valid-only \
                --block "$scratch/formatted.txt" -o "$scratch/index.calldir"
            timed "$build" "compile, the same as E.164 digits" "$bin/calldir" compile -q --sort --dedupe --skip-invalid --international \
                --block "$scratch/e164.txt" -o "$scratch/index.calldir"
        fi
        for kind in identify block; do
            fuzzers_pause
            start=$EPOCHREALTIME
            "$bin/calldir" lookup --index "$dir/$kind.calldir" - <"$dir/queries-1000000.txt" >/dev/null || true
            end=$EPOCHREALTIME
            fuzzers_resume
            seconds[$kind]=$(python3 -c "print(round($end - $start, 4))")
            record "$build" "lookup - ($kind), s" "${seconds[$kind]}"
        done
        record "$build" "lookup - identify / block" "$(python3 -c "print(round(${seconds[identify]} / ${seconds[block]}, 4))")"
        serve_start "$bin/calldir" "$dir/identify.calldir" "$port" || exit 2
        fuzzers_pause
        post=$(wrk_rate "$port" "$root/Benchmarks/scripts/batch.lua" 4 "${DURATION:-4s}" "$dir/queries-1000000.txt" 1000)
        get=$(wrk_rate "$port" "$root/Benchmarks/scripts/lookup.lua" 64 "${DURATION:-4s}" "$dir/queries-1000000.txt" 1)
        fuzzers_resume
        serve_stop
        record "$build" "POST of 1,000, numbers/s" "$post"
        record "$build" "single GETs, requests/s" "$get"
        number=$(head -1 "$dir/queries-1000000.txt")
        # The same number as written nationally with its code: +1 (569) 496-4966.
        written="+${number:0:1} (${number:1:3}) ${number:4:3}-${number:7}"
        for shape in plain formatted; do
            fuzzers_pause
            if [ $shape = plain ]; then
                hyperfine -N -i --runs "${RUNS:-100}" --warmup 5 --export-json "$scratch/oneshot.json" \
                    "$bin/calldir lookup --index $dir/identify.calldir $number" >/dev/null 2>&1
            else
                hyperfine -N -i --runs "${RUNS:-100}" --warmup 5 --export-json "$scratch/oneshot.json" \
                    "$bin/calldir lookup --index $dir/identify.calldir '$written'" >/dev/null 2>&1
            fi
            fuzzers_resume
            record "$build" "one-shot lookup ($shape), ms" \
                "$(python3 -c "import json,sys; print(round(json.load(open(sys.argv[1]))['results'][0]['median'] * 1000, 3))" "$scratch/oneshot.json")"
        done
    done
done

python3 - "$raw" "$before" "$after" "${THRESHOLD:-5}" "${COMPILE_THRESHOLD:-15}" <<'PY'
import collections, statistics, sys
raw, threshold, compile_threshold = sys.argv[1], float(sys.argv[4]), float(sys.argv[5])
before, after = "before", "after"
values = collections.defaultdict(list)
for line in open(raw):
    build, figure, value = line.rstrip("\n").split("|")
    values[(build, figure)].append(float(value))
print(f"before: {sys.argv[2]}\nafter:  {sys.argv[3]}\n")
show = lambda v: f"{v:,.0f}" if v >= 1000 else f"{v:.4g}"
print("| Figure | Before | After | After / before | |")
print("|---|---|---|---|---|")
worse = 0
for figure in dict.fromkeys(f for _, f in values):
    b, a = statistics.median(values[(before, figure)]), statistics.median(values[(after, figure)])
    ratio = a / b if b else float("nan")
    higher_is_better = "/s" in figure
    change = (1 / ratio - 1) if higher_is_better else (ratio - 1)  # positive: worse
    limit = compile_threshold if figure.startswith("compile") and figure.endswith(", s") else threshold
    flag = "**worse**" if change * 100 > limit else ""
    worse += bool(flag)
    print(f"| {figure} | {show(b)} | {show(a)} | {ratio:.3f} | {flag} |")
print(f"\n{worse} figure(s) worse than their threshold" if worse else "\nnothing worse than its threshold")
sys.exit(1 if worse else 0)
PY
