#!/usr/bin/env python3
"""Two blocking lists for the delta benchmark: OLD with COUNT ascending NANP numbers, and NEW
= OLD without every 100th number plus as many new numbers (1% churn each way).

churn.py COUNT OLD NEW     e.g. churn.py 10000000 old.txt new.txt
A fixed LCG walk, so every run gets the same lists.
"""
import sys

count, old_path, new_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
state, value = 0x9E3779B97F4A7C15, 12_000_000_000
with open(old_path, "w") as old, open(new_path, "w") as new:
    for i in range(count):
        state = (state * 6364136223846793005 + 1442695040888963407) & ((1 << 64) - 1)
        value += 4 + (state >> 33) % 150  # gaps of at least 4 leave room for the additions
        if (value // 1_000_000) % 10 < 2:  # keep exchanges 2-9: calldir rejects 0 and 1
            value = value // 10_000_000 * 10_000_000 + 2_000_000
        old.write(f"{value}\n")
        if i % 100 == 0:
            new.write(f"{value + 2}\n")  # removed; a new neighbour instead
        else:
            new.write(f"{value}\n")
