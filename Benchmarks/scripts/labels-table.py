#!/usr/bin/env python3
"""The markdown tables of Benchmarks/scripts/labels.sh, from its rows.txt.

    labels-table.py ROWS QUERIES

ROWS has a header line and one line per corpus and tool (several runs' files may be concatenated): corpus tool build_s rss_mib bytes
entries oneshot_ms batch_s sort_s sort_rss_mib get_rps post_nps ("-" where it does not apply; the
last two are the daemon's single GETs per second and numbers per second in 1,000-number POSTs).
"""
import sys


def corpus_name(corpus):
    size, pct = corpus.split("-")
    size = int(size)
    return f"{size // 1_000_000}M, {pct}% distinct" if size >= 1_000_000 else f"{size:,}, {pct}% distinct"


def verdict(ok):
    return "yes" if ok else "**no**"


def daemon(identified, blocked):
    if not identified["get"] or not blocked["get"]:
        return "not measured"
    get, post = blocked["get"] / identified["get"], blocked["post"] / identified["post"]
    return f"{get:.2f}× / {post:.2f}×: {verdict(max(get, post) <= 1.3)}"


def main():
    rows_path, queries = sys.argv[1], int(sys.argv[2])
    rows = {}
    for line in open(rows_path).read().split("\n"):
        if not line or line.startswith("corpus "):  # headers (files of several runs may be joined)
            continue
        corpus, tool, build, rss, size, entries, shot, batch, sort, sort_rss, get, post = line.split()
        rows.setdefault(corpus, {})[tool] = dict(
            build=float(build), rss=float(rss), bytes=int(size), entries=int(entries), shot=float(shot),
            batch=None if batch == "-" else float(batch), sort=None if sort == "-" else float(sort),
            sort_rss=None if sort_rss == "-" else float(sort_rss),
            get=None if get == "-" else float(get), post=None if post == "-" else float(post))
    out = ["| Corpus | Tool | Build (s) | Build vs calldir | Peak RSS (MiB) | File (MB) | Bytes/entry | One-shot (ms) |",
           "|---|---|---|---|---|---|---|---|"]
    for corpus, tools in rows.items():
        ref = tools["calldir"]["build"]
        for tool, label in [("calldir", "calldir `--identify`"), ("calldir-block", "calldir `--block`, numbers only"),
                            ("sqlite", "SQLite"), ("tinycdb", "tinycdb")]:
            r = tools[tool]
            out.append(f"| {corpus_name(corpus)} | {label} | {r['build']:.2f} | {r['build'] / ref:.2f}× | {r['rss']:.1f} "
                       f"| {r['bytes'] / 1e6:.1f} | {r['bytes'] / r['entries']:.2f} | {r['shot']:.2f} |")
            if tool == "calldir":
                out.append(f"| {corpus_name(corpus)} | calldir `--sort --memory 64M`, shuffled | {r['sort']:.2f} "
                           f"| {r['sort'] / ref:.2f}× | {r['sort_rss']:.1f} | — | — | — |")
    out += ["", f"| Corpus | Lookups | Identified index | Blocked-only index | Identified vs blocked (time) |",
            "|---|---|---|---|---|"]
    for corpus, tools in rows.items():
        ident, block = tools["calldir"], tools["calldir-block"]
        out.append(f"| {corpus_name(corpus)} | `calldir lookup -`, {queries:,} numbers | {ident['batch']:.2f} s, "
                   f"{queries / ident['batch'] / 1e6:.2f} M/s | {block['batch']:.2f} s, {queries / block['batch'] / 1e6:.2f} M/s "
                   f"| {ident['batch'] / block['batch']:.2f}× |")
        if ident["get"] and block["get"]:
            out.append(f"| {corpus_name(corpus)} | daemon, single GETs | {ident['get']:,.0f} req/s | {block['get']:,.0f} req/s "
                       f"| {block['get'] / ident['get']:.2f}× |")
            out.append(f"| {corpus_name(corpus)} | daemon, POSTs of 1,000 | {ident['post'] / 1e6:.2f} M/s | "
                       f"{block['post'] / 1e6:.2f} M/s | {block['post'] / ident['post']:.2f}× |")
    out += ["", "| Corpus | Compile RSS < 64 MiB (sorted / `--sort`) | Index ≤ 0.5× SQLite bytes | Compile ≥ 3× faster than SQLite "
            "| One-shot ≤ 1.5 ms | Batch identified ≤ 1.3× blocked | Daemon identified ≤ 1.3× blocked (GET / POST) |",
            "|---|---|---|---|---|---|---|"]
    for corpus, tools in rows.items():
        c, s, b = tools["calldir"], tools["sqlite"], tools["calldir-block"]
        out.append(
            f"| {corpus_name(corpus)} | {c['rss']:.0f} / {c['sort_rss']:.0f} MiB: {verdict(max(c['rss'], c['sort_rss']) < 64)} "
            f"| {c['bytes'] / s['bytes']:.2f}×: {verdict(c['bytes'] <= 0.5 * s['bytes'])} "
            f"| {s['build'] / c['build']:.1f}×: {verdict(s['build'] >= 3 * c['build'])} "
            f"| {c['shot']:.2f} ms: {verdict(c['shot'] <= 1.5)} "
            f"| {c['batch'] / b['batch']:.2f}×: {verdict(c['batch'] <= 1.3 * b['batch'])} "
            f"| {daemon(c, b)} |")
    print("\n".join(out))


if __name__ == "__main__":
    main()
