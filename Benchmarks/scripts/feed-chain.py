#!/usr/bin/env python3
"""The next day of a blocking list for the feed benchmark: 1% churn each way. Every 100th
number (starting at DAY % 100) is replaced by its neighbour + 1, so the list stays sorted and
distinct (churn.py leaves gaps of at least 4) and each day changes other numbers.
An identification list (`number,label` CSV with a header, ascending, as labels-corpus.py
writes) gets the same churn, the label kept; a replacement that would meet the next number
(labels-corpus.py leaves no gaps) is skipped.

feed-chain.py DAY OLD NEW
"""
import sys

day, old_path, new_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
with open(old_path) as old, open(new_path, "w") as new:
    lines = iter(old)
    first = next(lines)
    if not first[0].isdigit():  # a CSV header
        new.write(first)
        first = next(lines)
    row, i = first, 0
    for following in lines:
        value, sep, rest = row.partition(",")
        changed = i % 100 == day % 100 and int(value) + 1 != int(following.partition(",")[0])
        new.write(f"{int(value) + 1 if changed else int(value)}{sep}{rest.rstrip(chr(10))}\n")
        row, i = following, i + 1
    value, sep, rest = row.partition(",")
    new.write(f"{int(value) + 1 if i % 100 == day % 100 else int(value)}{sep}{rest.rstrip(chr(10))}\n")
