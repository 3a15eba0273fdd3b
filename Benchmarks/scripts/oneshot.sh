#!/usr/bin/env bash
# One-shot lookups: what one `calldir lookup --index INDEX NUMBER` process costs, next to the
# floor under it on this machine. hyperfine -N (no shell), ROUNDS (default 10) rounds of RUNS
# (default 100) runs of every command, so that a noisy spell hits every command alike; prints
# each command's median over all runs and the range of its round medians, in ms:
#   /bin/true                         exec and exit of a small dynamic C program
#   swift-hello                       a statically linked Swift `print` (the Swift runtime's start-up)
#   calldir-oneshot                   the reader library alone (Benchmarks/Sources/calldir-oneshot)
#   calldir lookup, tiny index        the CLI on the 1 KB golden fixture
#   calldir lookup, INDEX             the CLI on each INDEX given (e.g. 10M-entry files)
#   cdb -q, INDEX                     tinycdb on the same list (INDEX exported as text into a
#                                     cdb under Benchmarks/out/oneshot, made once), side by side
#
#   Benchmarks/scripts/oneshot.sh [INDEX NUMBER]...
#
# OLD=path/to/another/calldir adds its rows for the same indexes (e.g. a build before a change).
# A NUMBER may be written as a caller would ('+1 (408) 555-0100'); cdb is asked its digits.
# Stop other work first: a loaded 2-core machine doubles these numbers.
set -euo pipefail
export CALLDIR_STATIC_LINK=1  # release executables link statically (Package.swift)
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/Benchmarks/out/oneshot
mkdir -p "$out"
(cd "$root" && swift build -c release --product calldir 2>&1 && swift build -c release --product calldir-cli 2>&1) | grep -E "error|Compiling|Build" >&2
(cd "$root/Benchmarks" && swift build -c release --product calldir-oneshot 2>&1 | grep -E "error|Compiling|Build" >&2)
# Timed as installed: copies (a binary just written by the linker sits in the page cache in
# small pieces and took 5 more page faults and ~0.2 ms more per run than the same file copied).
install -D "$root/.build/release/calldir" "$out/new/calldir"
install -D "$root/Benchmarks/.build/release/calldir-oneshot" "$out/new/calldir-oneshot"
calldir=$out/new/calldir
oneshot=$out/new/calldir-oneshot
if [ -n "${OLD:-}" ]; then install -D "$OLD" "$out/old/calldir"; OLD=$out/old/calldir; fi
printf 'print("x")\n' >"$out/hello.swift"
swiftc -O -static-executable "$out/hello.swift" -o "$out/swift-hello" 2>/dev/null
tiny=$root/Tests/CallDirReaderTests/Fixtures/tiny.calldir
commands=("/bin/true" "$out/swift-hello" "$oneshot $tiny 18775555555" "$calldir lookup --index $tiny 18775555555")
command -v cdb >/dev/null || { echo "[oneshot] installing tinycdb" >&2; apt-get install -y -qq tinycdb >/dev/null; }
while [ $# -ge 2 ]; do
    # hyperfine -N splits commands at spaces: a formatted number is passed in single quotes.
    number="'$2'" digits=$(tr -dc 0-9 <<<"$2")
    commands+=("$oneshot $1 $digits" "$calldir lookup --index $1 $number")
    [ -n "${OLD:-}" ] && commands+=("$OLD lookup --index $1 $number")
    db=$out/$(basename "$1" .calldir)-$(cksum <"$1" | cut -d' ' -f1).cdb
    # The same entries: number, then its label (none for blocked-only entries), as cdb -m reads them.
    [ -s "$db" ] || "$root/.build/release/calldir-cli" export --index "$1" --format text | cdb -c -m "$db"
    commands+=("cdb -q $db $digits")
    shift 2
done
rm -f "$out"/round-*.json
for round in $(seq "${ROUNDS:-10}"); do
    hyperfine -N -i -w 5 -r "${RUNS:-100}" --export-json "$out/round-$round.json" "${commands[@]}" >/dev/null 2>&1
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$out"/round-*.json <<'PY'
import collections, json, statistics, sys
times, rounds = collections.defaultdict(list), collections.defaultdict(list)
for path in sys.argv[1:]:
    for r in json.load(open(path))["results"]:
        times[r["command"]] += r["times"]
        rounds[r["command"]].append(statistics.median(r["times"]))
for command, t in times.items():
    print("%7.3f ms  (rounds %.3f-%.3f)  %s" % (statistics.median(t) * 1e3, min(rounds[command]) * 1e3,
                                              max(rounds[command]) * 1e3, command))
PY
