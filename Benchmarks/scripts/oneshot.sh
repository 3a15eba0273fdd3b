#!/usr/bin/env bash
# One-shot lookups: what one `calldir lookup --index INDEX NUMBER` process costs, next to the
# floor under it on this machine. hyperfine -N (no shell), medians of RUNS (default 300) in ms:
#   /bin/true                         exec and exit of a small dynamic C program
#   swift-hello                       a statically linked Swift `print` (the Swift runtime's start-up)
#   calldir-oneshot                   the reader library alone (Benchmarks/Sources/calldir-oneshot)
#   calldir lookup, tiny index        the CLI on the 1 KB golden fixture
#   calldir lookup, INDEX             the CLI on each INDEX given (e.g. 10M-entry files)
#
#   Benchmarks/scripts/oneshot.sh [INDEX NUMBER]...
#
# OLD=path/to/another/calldir adds its rows for the same indexes (e.g. a build before a change).
# Stop other work first: a loaded 2-core machine doubles these numbers.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/Benchmarks/out/oneshot
mkdir -p "$out"
(cd "$root" && swift build -c release --product calldir 2>&1 | grep -E "error|Compiling|Build" >&2)
(cd "$root/Benchmarks" && swift build -c release --product calldir-oneshot 2>&1 | grep -E "error|Compiling|Build" >&2)
calldir=$root/.build/release/calldir
oneshot=$root/Benchmarks/.build/release/calldir-oneshot
printf 'print("x")\n' >"$out/hello.swift"
swiftc -O -static-executable "$out/hello.swift" -o "$out/swift-hello" 2>/dev/null
tiny=$root/Tests/CallDirTests/Fixtures/tiny.calldir
commands=("/bin/true" "$out/swift-hello" "$oneshot $tiny 18775555555" "$calldir lookup --index $tiny 18775555555")
while [ $# -ge 2 ]; do
    commands+=("$oneshot $1 $2" "$calldir lookup --index $1 $2")
    [ -n "${OLD:-}" ] && commands+=("$OLD lookup --index $1 $2")
    shift 2
done
hyperfine -N -i -w 20 -r "${RUNS:-300}" --export-json "$out/hyperfine.json" "${commands[@]}" >/dev/null 2>&1
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$out/hyperfine.json" <<'PY'
import json, statistics, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print("%7.3f ms  %s" % (statistics.median(r["times"]) * 1e3, r["command"]))
PY
