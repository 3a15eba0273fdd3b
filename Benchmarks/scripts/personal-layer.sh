#!/bin/sh
# The user's layer figures of docs/BENCHMARKS.md ("The user's layer on the phone", issue 37):
# the French operator ranges (15M numbers in 374 ranges) in an App Group folder with 2,000
# contacts, 500 of them inside blocked ranges, loaded through the extension's real path
# (`CallDirectoryExtensionRequest` with the layer, `calldir-personal`, release, one core):
# entries of a complete load without and with the layer, then one request each for one contact
# added, one allowance with an expiry ("allow for 2 hours"), one personal pattern: entries
# sent, time to build the request, peak memory of the process.
# Run from the package root: Benchmarks/scripts/personal-layer.sh   (needs ../shared/realdata)
set -eu
out=Benchmarks/out/personal
group=$out/group
rm -rf "$out" && mkdir -p "$group"
swift build --product calldir >/dev/null  # only compiles the list: the index's bytes do not depend on the build
(cd Benchmarks && swift build -c release --product calldir-personal >/dev/null)
tool="taskset -c ${CORE:-1} Benchmarks/.build/release/calldir-personal"
.build/debug/calldir compile -q --skip-invalid --block ../shared/realdata/fr-arcep-operator-ranges.json -o "$group/index.calldir"
# 2,002 contacts, 502 inside blocked ranges (cards 0-501): card 500 is the contact added later,
# card 501's number the one allowed for 2 hours; the device starts with the other 2,000.
$tool contacts "$group/index.calldir" "$out/all.vcf" 2002 502
sed '2501,2510d' "$out/all.vcf" > "$out/contacts.vcf"
allowed=$(sed -n '2509s/^TEL://p' "$out/all.vcf")
echo "== without the layer"
$tool load "$group"
echo "== with the layer: 2,000 contacts (500 inside blocked ranges)"
cp "$out/contacts.vcf" "$group/contacts.vcf"
printf 'calldir-personal 1\n' > "$group/personal.txt"
$tool load "$group" --layer
echo "== one contact added (inside a blocked range)"
sed '2506,2510d' "$out/all.vcf" > "$group/contacts.vcf"
$tool request "$group"
echo "== one exception with an expiry: allow $allowed for 2 hours"
printf 'allow %s ; until %s\n' "$allowed" $(($(date +%s) + 7200)) >> "$group/personal.txt"
$tool request "$group"
echo "== one personal pattern: block +33 9 70 00 ## ##"
printf 'block +33 9 70 00 ## ##\n' >> "$group/personal.txt"
$tool request "$group"
echo "== the same layer again (nothing changed)"
$tool request "$group"
