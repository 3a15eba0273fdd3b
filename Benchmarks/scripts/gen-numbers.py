#!/usr/bin/env python3
"""Deterministic test lists for the serve benchmark.

gen-numbers.py lists COUNT BLOCK ID -> COUNT ascending, distinct 11-digit NANP numbers: every
                                        10th to ID as 'number,label' (100 labels), the rest to BLOCK
gen-numbers.py sample COUNT SEED N   -> N query numbers: every other one listed (drawn from the
                                        same sequence), the rest random numbers in the same span
The sequence is a fixed LCG walk, so every run (and every machine) gets the same list.
"""
import sys

START = 12_000_000_000
MASK = (1 << 64) - 1


def possible(value):
    """The next possible NANP number at or above value: an exchange (the digit after the
    area code) of 0 or 1 is moved up to 2, as calldir's normaliser rejects those."""
    if (value // 1_000_000) % 10 < 2:
        value = value // 10_000_000 * 10_000_000 + 2_000_000
    return value


def numbers(count):
    state = 0x9E3779B97F4A7C15
    value = START
    for _ in range(count):
        state = (state * 6364136223846793005 + 1442695040888963407) & MASK
        value = possible(value + 1 + (state >> 33) % 150)  # mean gap ~75 (~94 with skips)
        yield value


def main():
    mode = sys.argv[1]
    out = sys.stdout
    if mode == "lists":
        count = int(sys.argv[2])
        with open(sys.argv[3], "w") as block, open(sys.argv[4], "w") as identify:
            blocked, labelled = [], []
            for i, n in enumerate(numbers(count)):
                if i % 10 == 0:
                    labelled.append("%d,Caller group %d\n" % (n, (i // 10) % 100))
                else:
                    blocked.append("%d\n" % n)
                if len(blocked) >= 100_000:
                    block.write("".join(blocked))
                    identify.write("".join(labelled))
                    blocked.clear()
                    labelled.clear()
            block.write("".join(blocked))
            identify.write("".join(labelled))
    elif mode == "sample":
        count, seed, n = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
        stride = max(1, count // n)
        listed = [v for i, v in enumerate(numbers(count)) if i % stride == 0][: n // 2 + 1]
        span = 94 * count
        state = seed
        picks = []
        for i in range(n):
            state = (state * 6364136223846793005 + 1442695040888963407) & MASK
            if i % 2 == 0 and listed:
                picks.append(listed[(state >> 33) % len(listed)])
            else:
                picks.append(possible(START + (state >> 20) % span))
        out.write("".join("%d\n" % p for p in picks))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
