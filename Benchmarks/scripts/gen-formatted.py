#!/usr/bin/env python3
"""Writes COUNT formatted numbers for calldir-normalize: `CODE<TAB>FIELD` lines, valid numbers
of the 62 regions of scripts/libphonenumber-oracle.py in libphonenumber's NATIONAL format (with
--country: CODE is the region's calling code) and INTERNATIONAL format (CODE 0), half each.

    Benchmarks/scripts/gen-formatted.py COUNT SEED > formatted.tsv
"""
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
oracle = __import__("libphonenumber-oracle")
import phonenumbers  # noqa: E402
from phonenumbers import PhoneNumberFormat  # noqa: E402


def main():
    count, seed = int(sys.argv[1]), int(sys.argv[2])
    rng = random.Random(seed)
    per_region = count // len(oracle.REGIONS) + 1
    out = sys.stdout
    written = 0
    for region in oracle.REGIONS:
        for n in oracle.valid_bases(region, rng, per_region):
            if written >= count:
                return
            if written % 2 == 0:
                out.write("%d\t%s\n" % (n.country_code, phonenumbers.format_number(n, PhoneNumberFormat.NATIONAL)))
            else:
                out.write("0\t%s\n" % phonenumbers.format_number(n, PhoneNumberFormat.INTERNATIONAL))
            written += 1


if __name__ == "__main__":
    main()
