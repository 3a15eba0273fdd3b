#!/usr/bin/env python3
"""rss-split.py LABEL OUT -- COMMAND...: runs COMMAND (its stdout to OUT) and samples its
/proc/PID/status every 5 ms (Linux). Prints LABEL, the wall time, the peak VmRSS split into
RssAnon and RssFile, and at that peak the resident MiB of each mapping (the executable, the
files it mapped, anonymous memory) from /proc/PID/smaps, read whenever the peak rose. Sampling
can miss a peak shorter than 5 ms; /usr/bin/time's %M does not, but cannot split it."""
import re
import subprocess
import sys
import time


def field(status, name):
    m = re.search(r"^%s:\s+(\d+)" % name, status, re.M)
    return int(m.group(1)) if m else 0


def by_mapping(smaps):
    rows, name = {}, None
    for line in smaps.splitlines():
        m = re.match(r"^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$", line)
        if m:
            name = m.group(1) or "[anon]"
            if name in ("[heap]", "[stack]"):
                name = "[anon]"
            elif name.startswith("/usr/lib") or name.startswith("/lib"):
                name = "shared libraries"
            else:
                name = name.split("/")[-1]
        elif line.startswith("Rss:"):
            rows[name] = rows.get(name, 0) + int(line.split()[1])
    return rows


def main():
    label, out, command = sys.argv[1], sys.argv[2], sys.argv[sys.argv.index("--") + 1:]
    started = time.monotonic()
    with open(out, "w") as stdout:
        child = subprocess.Popen(command, stdout=stdout)
        peak, split, mappings = 0, (0, 0), {}
        while child.poll() is None:
            try:
                with open("/proc/%d/status" % child.pid) as f:
                    status = f.read()
                rss = field(status, "VmRSS")
                if rss > peak:
                    peak, split = rss, (field(status, "RssAnon"), field(status, "RssFile"))
                    with open("/proc/%d/smaps" % child.pid) as f:
                        mappings = by_mapping(f.read())
            except (OSError, ValueError):
                pass  # the process is exiting
            time.sleep(0.005)
    print("%s %.2f s, peak %.1f MiB (RssAnon %.1f + RssFile %.1f); at the peak: %s" % (
        label, time.monotonic() - started, peak / 1024, split[0] / 1024, split[1] / 1024,
        ", ".join("%s %.1f" % (k, v / 1024) for k, v in sorted(mappings.items(), key=lambda kv: -kv[1]) if v >= 100)))
    sys.exit(child.returncode)


main()
