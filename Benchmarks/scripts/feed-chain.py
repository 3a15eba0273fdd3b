#!/usr/bin/env python3
"""The next day of a blocking list for the feed benchmark: 1% churn each way. Every 100th
number (starting at DAY % 100) is replaced by its neighbour + 1, so the list stays sorted and
distinct (churn.py leaves gaps of at least 4) and each day changes other numbers.

feed-chain.py DAY OLD NEW
"""
import sys

day, old_path, new_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
with open(old_path) as old, open(new_path, "w") as new:
    for i, line in enumerate(old):
        value = int(line)
        new.write(f"{value + 1 if i % 100 == day % 100 else value}\n")
