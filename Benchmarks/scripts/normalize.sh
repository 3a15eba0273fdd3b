#!/usr/bin/env bash
# Issue 33's normaliser benchmark: TOTAL (default 10,000,000) formatted numbers of 62 regions
# (libphonenumber's NATIONAL format with --country, INTERNATIONAL without), one core, three
# ways side by side: their plain E.164 digits (the fast path), parsed as libphonenumber parses
# them, and parsed with validity and type from the DFA tables. Needs phonenumbers
# (scripts/setup --tests puts it in .venv-numbers). Usage: Benchmarks/scripts/normalize.sh [TOTAL]
set -euo pipefail
cd "$(dirname "$0")/.."
python=../.venv-numbers/bin/python3
[ -x "$python" ] || python=python3
mkdir -p out
[ -s out/formatted.tsv ] || "$python" scripts/gen-formatted.py 200000 1 | shuf --random-source=<(yes) > out/formatted.tsv
swift build -c release --product calldir-normalize >/dev/null
taskset -c 0 .build/release/calldir-normalize out/formatted.tsv "${1:-10000000}"
