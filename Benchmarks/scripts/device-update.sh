#!/bin/sh
# The device update figures of docs/BENCHMARKS-LOG.md ("Device updates"): `calldir simulate --from
# OLD NEW` (release, one core) for the French operator ranges against a variant with 1% of its
# entries changed, and for two pairs of 1M random indexes (blocking; identification) with 1%
# churn, plus a complete load of each NEW for comparison. Lists are generated under
# Benchmarks/out/update (git-ignored) by a seeded python3 script (standard library only).
# Run from the package root: Benchmarks/scripts/device-update.sh   (needs ../shared/realdata)
set -eu
export CALLDIR_STATIC_LINK=1  # release executables link statically (Package.swift)
out=Benchmarks/out/update
mkdir -p "$out"
swift build -c release --product calldir >/dev/null && swift build -c release --product calldir-cli >/dev/null
calldir=.build/release/calldir
python3 Benchmarks/scripts/fr-variant.py ../shared/realdata/fr-arcep-operator-ranges.json "$out/fr-variant.json"
python3 - "$out" <<'EOF'
import json, os, random, sys
out = sys.argv[1]
# 1M random numbers; NEW drops 10,000 and adds 10,000 (identification: also 10,000 relabelled).
r = random.Random(7)
old = set()
while len(old) < 1_000_000: old.add(r.randrange(12012000000, 19899999999))
gone = set(r.sample(sorted(old), 10_000))
added = set()
while len(added) < 10_000:
    x = r.randrange(12012000000, 19899999999)
    if x not in old: added.add(x)
new = (old - gone) | added
labels = ['Spam', 'Scam', 'Telemarketer', 'Survey', 'Charity', 'Debt collector', 'Robocall', 'Fraud', 'Political', 'Bank']
label = {x: r.choice(labels) for x in old}
new_label = {x: label.get(x) or r.choice(labels) for x in new}
for x in r.sample(sorted(new - added), 10_000): new_label[x] = r.choice([l for l in labels if l != new_label[x]])
def write(name, lines): open(os.path.join(out, name), 'w').write(''.join(lines))
write('b-old.txt', (f'{x}\n' for x in sorted(old)))
write('b-new.txt', (f'{x}\n' for x in sorted(new)))
write('i-old.csv', (f'{x},{label[x]}\n' for x in sorted(old)))
write('i-new.csv', (f'{x},{new_label[x]}\n' for x in sorted(new)))
EOF
$calldir compile -q --skip-invalid --block ../shared/realdata/fr-arcep-operator-ranges.json -o "$out/fr.calldir"
$calldir compile -q --skip-invalid --block "$out/fr-variant.json" -o "$out/fr-variant.calldir"
for f in b-old b-new; do $calldir compile -q --no-nanp-check --block "$out/$f.txt" -o "$out/$f.calldir"; done
for f in i-old i-new; do $calldir compile -q --no-nanp-check --identify "$out/$f.csv" -o "$out/$f.calldir"; done
rm -f "$out"/*.txt "$out"/*.csv "$out"/*.json
for pair in "fr fr-variant" "b-old b-new" "i-old i-new"; do
    set -- $pair
    echo "== update $1 -> $2"
    taskset -c "${CORE:-1}" $calldir simulate --from "$out/$1.calldir" "$out/$2.calldir" --request-size 1999999 | tail -4
    echo "== complete load of $2"
    taskset -c "${CORE:-1}" $calldir simulate --index "$out/$2.calldir" --request-size 1999999 | tail -2
done
