#!/bin/sh
# "Finishing a big list across launches" in docs/BENCHMARKS-LOG.md: requests and entries fed to
# finish the French operator ranges (14.95M numbers) when the app may run N reloads per launch,
# N = 1, 2, 4, for three app deaths: its background time expires (the expiration handler
# cancels loadAll, which keeps the request under way), it is killed during its N-th reload
# (the next launch adopts the request the extension confirmed), and killed without
# confirmation (the protocol before issue 36). Counts only; the index goes under
# Benchmarks/out/device (git-ignored). Run from the package root.
set -eu
export CALLDIR_STATIC_LINK=1  # release executables link statically (Package.swift)
out=Benchmarks/out/device
mkdir -p "$out/group"
swift build -c release --product calldir >/dev/null
(cd Benchmarks && swift build -c release --product calldir-launches >/dev/null)
calldir=.build/release/calldir
[ -f "$out/fr.calldir" ] || $calldir compile -q --skip-invalid --block ../shared/realdata/fr-arcep-operator-ranges.json -o "$out/fr.calldir"
for n in 1 2 4; do
    for death in "" "--kill" "--kill --no-confirm"; do
        # shellcheck disable=SC2086 # $death is two words or none
        Benchmarks/.build/release/calldir-launches "$out/fr.calldir" "$out/group" --reloads "$n" $death --max-launches 40
    done
done
