#!/usr/bin/env python3
"""Swift Testing's interface for iOS, from the Linux toolchain's own: what scripts/ios-check
type-checks the phone libraries' tests against (Apple's SDKs ship no Testing module, and
the SDK laid out here, iPhoneOS 16.5, predates Swift Testing).

    scripts/ios-testing-interface.py LINUX_INTERFACE TARGET OUTPUT

The interface declares only standard-library types; three edits make it build against the
SDK's older standard library:
  - the module flags name TARGET (arm64-apple-iosN.0) instead of Linux;
  - declarations naming exit tests are dropped: `ExitTest` is `~Copyable` in an Optional,
    which the 16.5 standard library cannot express, and Apple's own Testing marks exit
    tests unavailable on iOS, so a test using them must fail here anyway;
  - `= #isolation` default arguments become `= nil`: the macro is the newer standard
    library's (the callers' isolation, which type-checking a call does not depend on).
"""
import re
import sys

source, target, output = sys.argv[1:4]
text = open(source).read()
text = re.sub(r"-target \S+( -disable-objc-interop)?", "-target " + target, text, count=1)

# Top-level declarations, each with the attribute lines above it.
kept, chunk, depth = [], [], 0
for line in text.splitlines(keepends=True):
    chunk.append(line)
    depth += line.count("{") - line.count("}")
    if depth:
        continue
    block = "".join(chunk)
    if re.fullmatch(r"\s*(@[\w.]+(\([^()]*\))?\s*)*", block):
        continue  # attributes or blank lines: they belong to the next declaration
    if "ExitTest" not in block and "processExitsWith" not in block:
        kept.append(block)
    chunk = []
kept.append("".join(chunk))
open(output, "w").write("".join(kept).replace("= #isolation", "= nil"))
