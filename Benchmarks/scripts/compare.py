#!/usr/bin/env python3
"""calldir next to what users would otherwise use, on the same generated data, in one run.

Peers: sqlite3 (INTEGER PRIMARY KEY table, built with .import, bulk queries through the C
API in one read transaction), tinycdb (cdb -c / cdb -q; bulk through libcdb) and look(1) on
the sorted text, plus a plain C program that parses the list into raw 8-byte integers (the
compile baseline of issue 5). Measured: build time and peak memory, file size, bytes per
entry, one-shot CLI lookup wall time (hit and miss), bulk lookups per second.

This machine is shared and noisy: tools run interleaved, round by round (the order rotates),
and the table shows medians with the min-max of the per-round values. Ratios to calldir are
the figures to read. Missing peers are installed with apt-get (needs root).

    Benchmarks/scripts/compare.py                      # 10M entries, 5 rounds
    Benchmarks/scripts/compare.py --count 1000000 --rounds 3
    Benchmarks/scripts/compare.py --memory-checks      # + 100M compile and --sort at 10M
    Benchmarks/scripts/compare.py --update docs/BENCHMARKS.md

Everything generated goes to Benchmarks/out/compare/ (git-ignored); 100M data to /tmp.
"""
import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BENCH = os.path.join(ROOT, "Benchmarks")
MEASURE = None  # set by build()
PEERS = {"cdb": "tinycdb", "sqlite3": "sqlite3", "look": "bsdextrautils", "hyperfine": "hyperfine",
         "/usr/include/cdb.h": "libcdb-dev", "/usr/include/sqlite3.h": "libsqlite3-dev"}


def log(message):
    print(f"[compare] {message}", file=sys.stderr, flush=True)


def sh(cmd, **kwargs):
    """Runs a setup command, failing loudly."""
    return subprocess.run(cmd, check=True, **kwargs)


def timed(cmd, stdin=None, stdout=subprocess.DEVNULL, ok=(0,)):
    """Wall seconds and peak resident KiB of one run of `cmd`, measured by baseline/measure.c
    (a child of Python would report at least Python's own RSS)."""
    report = os.path.join(tempfile.gettempdir(), "calldir-compare-measure.txt")
    stdin_file = open(stdin, "rb") if stdin else subprocess.DEVNULL
    try:
        process = subprocess.run([MEASURE, report, *cmd], stdin=stdin_file, stdout=stdout, stderr=subprocess.PIPE)
    finally:
        if stdin:
            stdin_file.close()
    wall, rss, code = open(report).read().split()
    if int(code) not in ok:
        raise SystemExit(f"{' '.join(cmd)} exited with {code}: {process.stderr.decode()[-400:]}")
    return float(wall), int(rss)


def install_peers():
    missing = sorted({package for tool, package in PEERS.items()
                      if not (os.path.exists(tool) if tool.startswith("/") else shutil.which(tool))})
    if not missing:
        return
    if os.geteuid() != 0:
        raise SystemExit(f"missing {', '.join(missing)}; run as root or: sudo apt-get install -y {' '.join(missing)}")
    log(f"installing {', '.join(missing)}")
    sh(["apt-get", "update", "-qq"])
    sh(["apt-get", "install", "-y", "-qq", *missing], env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})


def build(out):
    log("building calldir (release, static) and the benchmark tools")
    sh(["swift", "build", "-c", "release", "--static-swift-stdlib"], cwd=ROOT, stdout=subprocess.DEVNULL)
    # SwiftPM may keep a stale file list for the path dependency (..): drop its build description.
    for triple in os.listdir(os.path.join(BENCH, ".build")) if os.path.isdir(os.path.join(BENCH, ".build")) else []:
        stale = os.path.join(BENCH, ".build", triple, "release", "description.json")
        if os.path.exists(stale):
            os.remove(stale)
    for product in ["calldir-gen", "calldir-bulk"]:
        sh(["swift", "build", "-c", "release", "--product", product], cwd=BENCH, stdout=subprocess.DEVNULL)
    tools = {"calldir": os.path.join(ROOT, ".build", "release", "calldir"),
             "gen": os.path.join(BENCH, ".build", "release", "calldir-gen"),
             "bulk": os.path.join(BENCH, ".build", "release", "calldir-bulk")}
    for name, libs in [("parse_raw", []), ("cdb_bulk", ["-lcdb"]), ("sqlite_bulk", ["-lsqlite3"]), ("measure", [])]:
        tools[name] = os.path.join(out, name)
        sh(["cc", "-O2", "-o", tools[name], os.path.join(BENCH, "baseline", f"{name}.c"), *libs])
    global MEASURE
    MEASURE = tools["measure"]
    return tools


def generate(tools, out, count, queries, seed):
    data = {"list": os.path.join(out, f"list-{count}.txt"), "queries": os.path.join(out, f"queries-{count}.txt")}
    log(f"generating {count:,} numbers (seed {seed}) and {queries:,} queries")
    sh([tools["gen"], "list", "--count", str(count), "--seed", str(seed), "-o", data["list"]])
    sh([tools["gen"], "queries", "--count", str(count), "--seed", str(seed), "--queries", str(queries),
        "-o", data["queries"]])
    # One member from the middle of the list, and a number next to it that is not listed.
    with open(data["list"], "rb") as f:
        f.seek((count // 2) * 12)
        before, hit, after = (int(f.readline()) for _ in range(3))
    data["hit"] = str(hit)
    data["miss"] = str(hit + 1 if hit + 1 != after else hit - 1)
    assert int(data["miss"]) not in (before, hit, after)
    return data


def build_commands(tools, out, data):
    """Per tool: the build command and the file it makes (look reads the list as it is)."""
    sqlite_db = os.path.join(out, "db.sqlite")
    return {
        "calldir": ([tools["calldir"], "compile", "-q", "--block", data["list"], "-o", os.path.join(out, "db.calldir")],
                    os.path.join(out, "db.calldir"), None),
        "C parse to raw int64": ([tools["parse_raw"], data["list"], os.path.join(out, "raw.bin")],
                                 os.path.join(out, "raw.bin"), None),
        "tinycdb": (["cdb", "-c", "-m", os.path.join(out, "db.cdb"), data["list"]], os.path.join(out, "db.cdb"), None),
        "sqlite3": (["sqlite3", sqlite_db], sqlite_db,
                    "CREATE TABLE t(n INTEGER PRIMARY KEY);\n.mode list\n.import " + data["list"] + " t\n"),
        "look": (None, data["list"], None),
    }


def run_builds(commands, rounds):
    results = {tool: {"time": [], "rss": []} for tool, (cmd, _, _) in commands.items() if cmd}
    tools = list(results)
    for r in range(rounds):
        order = tools[r % len(tools):] + tools[:r % len(tools)]
        for tool in order:
            cmd, output, script = commands[tool]
            if os.path.exists(output):
                os.remove(output)  # every build starts from nothing, outside the timing
            stdin = None
            if script:
                stdin = os.path.join(tempfile.gettempdir(), "calldir-compare.sql")
                with open(stdin, "w") as f:
                    f.write(script)
            wall, rss = timed(cmd, stdin=stdin)
            results[tool]["time"].append(wall)
            results[tool]["rss"].append(rss)
            log(f"round {r + 1}: {tool} build {wall:.3f} s, {rss / 1024:.1f} MiB")
    return results


def run_oneshot(tools, out, data, rounds, runs):
    commands = {
        "calldir": lambda n: f"{tools['calldir']} lookup --index {os.path.join(out, 'db.calldir')} {n}",
        "tinycdb": lambda n: f"cdb -q {os.path.join(out, 'db.cdb')} {n}",
        "sqlite3": lambda n: f"sqlite3 {os.path.join(out, 'db.sqlite')} 'SELECT 1 FROM t WHERE n = {n}'",
        "look": lambda n: f"look {n} {data['list']}",
    }
    results = {tool: {"hit": [], "miss": []} for tool in commands}
    for r in range(rounds):
        for kind in ["hit", "miss"]:
            names = list(commands)
            names = names[r % len(names):] + names[:r % len(names)]
            export = os.path.join(out, "hyperfine.json")
            sh(["hyperfine", "-N", "-i", "-w", "10", "-r", str(runs), "--export-json", export,
                *[commands[t](data[kind]) for t in names]], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            with open(export) as f:
                for tool, result in zip(names, json.load(f)["results"]):
                    results[tool][kind].append(statistics.median(result["times"]))
        log(f"round {r + 1}: one-shot " + ", ".join(f"{t} {results[t]['hit'][-1] * 1e3:.2f} ms" for t in commands))
    return results


def parse_bulk(text):
    fields = dict(item.split("=") for item in text.split())
    return int(fields["lookups"]), int(fields["found"]), float(fields["best_seconds"])


def run_bulk(tools, out, data, rounds):
    queries = data["queries"]
    commands = {
        "calldir (batch API)": [tools["bulk"], os.path.join(out, "db.calldir"), queries, "3", "batch"],
        "calldir (lookup() per number)": [tools["bulk"], os.path.join(out, "db.calldir"), queries, "3", "one"],
        "tinycdb": [tools["cdb_bulk"], os.path.join(out, "db.cdb"), queries, "3"],
        "sqlite3": [tools["sqlite_bulk"], os.path.join(out, "db.sqlite"), queries, "3"],
    }
    results = {tool: [] for tool in [*commands, "calldir CLI (stdin)"]}
    found_counts = set()
    for r in range(rounds):
        names = list(commands)
        for tool in names[r % len(names):] + names[:r % len(names)]:
            text = subprocess.run(commands[tool], check=True, capture_output=True, text=True).stdout
            lookups, found, seconds = parse_bulk(text)
            found_counts.add(found)
            results[tool].append(lookups / seconds)
        wall, _ = timed([tools["calldir"], "lookup", "--index", os.path.join(out, "db.calldir"), "-"],
                        stdin=queries, ok=(0, 1))
        results["calldir CLI (stdin)"].append(lookups / wall)
        log(f"round {r + 1}: bulk " + ", ".join(f"{t} {v[-1] / 1e6:.2f}M/s" for t, v in results.items()))
    if len(found_counts) != 1:
        raise SystemExit(f"tools disagree on how many queries are listed: {found_counts}")
    return results, found_counts.pop()


def memory_checks(tools, count):
    """Compile time and peak memory: sorted 10M (done above), 100M sorted, 10M shuffled --sort."""
    rows = []
    folder = tempfile.mkdtemp(prefix="calldir-memory-")
    try:
        for n, shuffle in [(100_000_000, False), (10_000_000, True)]:
            listing = os.path.join(folder, f"list-{n}.txt")
            log(f"generating {n:,} {'shuffled' if shuffle else 'sorted'} numbers in {folder}")
            sh([tools["gen"], "list", "--count", str(n), "--seed", "1", "-o", listing, *(["--shuffle"] if shuffle else [])])
            cmd = [tools["calldir"], "compile", "-q", "--block", listing, "-o", os.path.join(folder, "i.calldir")]
            if shuffle:
                cmd[3:3] = ["--sort", "--memory", "64M"]
            wall, rss = timed(cmd)
            size = os.path.getsize(os.path.join(folder, "i.calldir"))
            rows.append((f"{n // 1_000_000}M {'shuffled, --sort --memory 64M' if shuffle else 'sorted'}",
                         wall, rss, size, n, " ".join(["calldir", *cmd[1:]]).replace(folder, "/tmp/…")))
            os.remove(listing)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return rows


def summary(values, scale=1.0, digits=2):
    if not values:
        return "—"
    return (f"{statistics.median(values) * scale:.{digits}f} "
            f"({min(values) * scale:.{digits}f}–{max(values) * scale:.{digits}f})")


def ratio(value, reference):
    return f"{value / reference:.2f}×" if value and reference else "—"


def machine():
    model = re.search(r"Model name:\s*(.+)", subprocess.run(["lscpu"], capture_output=True, text=True).stdout)
    mem = re.search(r"MemTotal:\s*(\d+)", open("/proc/meminfo").read())
    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    versions = {
        "sqlite3": subprocess.run(["sqlite3", "--version"], capture_output=True, text=True).stdout.split()[0],
        "tinycdb": subprocess.run(["dpkg-query", "-W", "-f=${Version}", "tinycdb"], capture_output=True, text=True).stdout,
        "look": subprocess.run(["dpkg-query", "-W", "-f=${Version}", "bsdextrautils"], capture_output=True, text=True).stdout,
        "hyperfine": subprocess.run(["hyperfine", "--version"], capture_output=True, text=True).stdout.strip(),
    }
    return (f"{model.group(1) if model else platform.processor()}, {os.cpu_count()} cores, "
            f"{int(mem.group(1)) / 1024 / 1024:.0f} GiB RAM, Linux {platform.release()}, {swift}; "
            f"sqlite3 {versions['sqlite3']}, tinycdb {versions['tinycdb']}, look (util-linux) {versions['look']}, "
            f"{versions['hyperfine']}; load average before the run {os.getloadavg()[0]:.2f}")


def markdown(args, count, builds, sizes, oneshot, bulk, found, memory):
    lines = [f"Generated: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. Machine: {machine()}.", "",
             f"Command: `{' '.join(['Benchmarks/scripts/compare.py', *sys.argv[1:]])}`", "",
             f"{count:,} sorted 11-digit North American numbers (`calldir-gen list --count {count} --seed {args.seed}`), "
             f"{len(open(args.queries_path).readlines()):,} bulk queries ({found:,} listed). Medians over {args.rounds} "
             f"interleaved rounds, (min–max) of the rounds; one-shot times are the medians of {args.runs} runs per "
             "round (hyperfine -N).", ""]
    lines += ["| Tool | Build (s) | Build vs calldir | Peak RSS of build (MiB) | File (MB) | Bytes/entry "
              "| One-shot hit (ms) | One-shot miss (ms) | One-shot vs calldir |",
              "|---|---|---|---|---|---|---|---|---|"]
    reference = statistics.median(builds["calldir"]["time"])
    reference_hit = statistics.median(oneshot["calldir"]["hit"])
    for tool in ["calldir", "C parse to raw int64", "tinycdb", "sqlite3", "look"]:
        build = builds.get(tool)
        size = sizes[tool]
        shot = oneshot.get(tool)
        lines.append(
            f"| {tool} | {summary(build['time']) if build else '— (reads the sorted text)'} "
            f"| {ratio(statistics.median(build['time']), reference) if build else '—'} "
            f"| {summary([r / 1024 for r in build['rss']], digits=1) if build else '—'} "
            f"| {size / 1e6:.1f} | {size / count:.2f} "
            f"| {summary(shot['hit'], 1e3) if shot else '—'} | {summary(shot['miss'], 1e3) if shot else '—'} "
            f"| {ratio(statistics.median(shot['hit']), reference_hit) if shot else '—'} |")
    lines += ["", "| Bulk lookups (1 process, queries in memory) | Lookups/s, millions | vs tinycdb |", "|---|---|---|"]
    cdb = statistics.median(bulk["tinycdb"])
    for tool, values in bulk.items():
        lines.append(f"| {tool} | {summary(values, 1e-6)} | {statistics.median(values) / cdb:.2f}× |")
    look = statistics.median(oneshot["look"]["hit"])
    lines.append(f"| look (one process per lookup: 1 / one-shot time) | {1 / look / 1e6:.4f} | {1 / look / cdb:.4f}× |")
    if memory:
        lines += ["", "| calldir compile | Time (s) | Peak RSS (MiB) | Bytes/entry | Command |", "|---|---|---|---|---|"]
        for name, wall, rss, size, n, cmd in memory:
            lines.append(f"| {name} | {wall:.2f} | {rss / 1024:.1f} | {size / n:.2f} | `{cmd}` |")
    return "\n".join(lines) + "\n"


def update(path, table):
    text = open(path).read()
    begin, end = "<!-- compare:begin -->", "<!-- compare:end -->"
    if begin not in text or end not in text:
        raise SystemExit(f"{path} has no {begin} ... {end} markers")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    with open(path, "w") as f:
        f.write(head + begin + "\n" + table + end + tail)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=10_000_000, help="entries in the list (default 10M)")
    parser.add_argument("--queries", type=int, default=1_000_000, help="bulk queries, half of them listed")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    parser.add_argument("--runs", type=int, default=100, help="one-shot runs per tool per round (default 100)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--memory-checks", action="store_true", help="also compile 100M sorted and 10M shuffled (--sort)")
    parser.add_argument("--update", metavar="MARKDOWN", help="replace the table between compare markers in this file")
    args = parser.parse_args()
    out = os.path.join(BENCH, "out", "compare")
    os.makedirs(out, exist_ok=True)
    install_peers()
    tools = build(out)
    data = generate(tools, out, args.count, args.queries, args.seed)
    args.queries_path = data["queries"]
    commands = build_commands(tools, out, data)
    builds = run_builds(commands, args.rounds)
    sizes = {tool: os.path.getsize(path) for tool, (_, path, _) in commands.items()}
    oneshot = run_oneshot(tools, out, data, args.rounds, args.runs)
    bulk, found = run_bulk(tools, out, data, args.rounds)
    memory = memory_checks(tools, args.count) if args.memory_checks else []
    table = markdown(args, args.count, builds, sizes, oneshot, bulk, found, memory)
    with open(os.path.join(out, f"compare-{args.count}.md"), "w") as f:
        f.write(table)
    print(table)
    if args.update:
        update(args.update, table)
        log(f"updated {args.update}")


if __name__ == "__main__":
    main()
