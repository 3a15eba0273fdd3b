#!/usr/bin/env python3
"""A module's public surface from its symbol graph (swift-symbolgraph-extract), one declaration a
line, sorted, on stdout; each public declaration without a doc comment on stderr.

    scripts/api-surface.py MODULE.symbols.json MODULE

scripts/check-api runs it on the Linux build's modules, scripts/ios-check on the iOS-only ones
(CallDirCallKit, CallDirDevice's iOS glue), against api/*.txt and api/ios/*.txt.
"""
import json, sys
graph = json.load(open(sys.argv[1]))
# A member that implements a protocol's requirement (`description`, `==`) carries the
# requirement's comment in the graph, as DocC shows it; every other declaration needs its own.
for s in graph["symbols"]:
    if s.get("docComment"):
        continue
    location = s.get("location", {})
    file = location.get("uri", "").split("/Sources/", 1)[-1]
    line = location.get("position", {}).get("line", -1) + 1
    print(f"check-api: {sys.argv[2]}: {'.'.join(s['pathComponents'])} ({s['kind']['displayName']}, Sources/{file}:{line}) has no doc comment", file=sys.stderr)
names = {s["identifier"]["precise"]: ".".join(s["pathComponents"]) for s in graph["symbols"]}
lines = set()
for s in graph["symbols"]:
    declaration = "".join(f["spelling"] for f in s.get("declarationFragments", []))
    parent = ".".join(s["pathComponents"][:-1])
    lines.add((parent + ": " if parent else "") + " ".join(declaration.split()))
for r in graph.get("relationships", []):
    if r["kind"] == "conformsTo" and r["source"] in names:
        target = names.get(r["target"]) or r.get("targetFallback") or r["target"]
        lines.add(f"{names[r['source']]}: conforms to {target}")
print("\n".join(sorted(line for line in lines if not line.endswith("conforms to Swift.SendableMetatype"))))
