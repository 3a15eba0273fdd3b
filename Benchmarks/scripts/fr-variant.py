#!/usr/bin/env python3
"""The French operator ranges with 1% of their entries changed, the OLD -> NEW pair of the
device update and patch benchmarks (device-update.sh, device-patch.sh): every 100th entry
(offset 50) shrunk by 10, split (100 numbers out), removed, or cut at the start; plus one new
10,000-number range.   Usage: fr-variant.py IN.json OUT.json"""
import json, sys

d = json.load(open(sys.argv[1]))
variant = []
for i, e in enumerate(d):
    if i % 100 != 50:
        variant.append(e)
        continue
    s, t, kind = int(e['start']), int(e['end']), (i // 100) % 4
    name = {'operator_name': e['operator_name']}
    if kind == 0: variant.append(dict(name, start=str(s), end=str(t - 10)))
    elif kind == 1:
        m = (s + t) // 2
        variant += [dict(name, start=str(s), end=str(m - 1)), dict(name, start=str(m + 100), end=str(t))]
    elif kind == 3: variant.append(dict(name, start=str(s + 1000 if t - s > 2000 else s + 1), end=str(t)))
variant.append({'operator_name': 'New operator', 'start': '33999000000', 'end': '33999009999'})
json.dump(variant, open(sys.argv[2], 'w'))
