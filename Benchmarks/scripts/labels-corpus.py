#!/usr/bin/env python3
"""A seeded corpus of realistic caller-ID labels for the identification benchmark.

    labels-corpus.py --count 1000000 --distinct 0.1 [--shuffle] [--seed 1] [-o FILE]

Writes `number,label` CSV (header `number,label`, labels with a comma or quote are quoted):
COUNT distinct 11-digit North American numbers (1 + NXX + NXX + XXXX, area code and exchange
200-999 without N11), ascending, or in a seeded random order with --shuffle (input for
`calldir compile --sort`). The default output is Benchmarks/.corpus/labels-COUNT-PCT-ORDER.csv
(git-ignored); an existing file is kept (delete it to regenerate).

Labels: a mix of person names (60%) and business names (40%) built from Faker's own data and
formats (`fake.name()`: en_US formats with their Dr./Mrs./Jr./MD/PhD variety and frequency
weighted first and last names, plus names of the Spanish, British, German, Italian, French,
Indian and Brazilian providers for a US-like variety, some with a middle initial;
`fake.company()`: "Last Inc", "Last-Last", "Last, Last and Last", plus "Last Plumbing" style
trades), drawn with our own seeded generator: calling Faker once per label costs ~30 µs, 5
minutes at 10M. Faker's en_US names alone have only ~700k first/last pairs, so 10M distinct
labels need the other providers and the initials. With --distinct 1.0 every label is distinct;
with --distinct D < 1 a pool of COUNT*D distinct labels is used once each and the remaining rows
draw from it with Zipf (s=1) frequencies, the generic labels of real lists ("Spam risk",
"Telemarketer", ...) taking the top ranks, so a few labels are very common.
Needs Faker (`pip install faker`); Benchmarks/scripts/labels.sh makes a venv for it.
"""
import argparse
import bisect
import importlib
import itertools
import os
import random
import sys
import time

import faker

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CODES = [c for c in range(200, 1000) if c % 100 != 11]  # NXX without N11: 792 codes
LINES = 10_000
SPACE = len(CODES) * len(CODES) * LINES  # 6,272,640,000 valid numbers
GENERIC = ["Spam risk", "Telemarketer", "Scam Likely", "Potential Fraud", "Debt Collector", "Robocall",
           "Survey", "Political Call", "Charity", "Health Insurance", "Nuisance Call", "Fraud Risk",
           "Auto Warranty", "Medicare Scam", "IRS Scam", "Solar Sales"]
TRADES = ["Plumbing", "Dental", "Auto Repair", "Insurance Agency", "Pharmacy", "Law Office", "Realty",
          "Roofing", "Pediatrics", "Family Dentistry", "Heating & Cooling", "Electric", "Landscaping",
          "Chiropractic", "Pizza", "Bakery", "Construction", "Cleaners", "Veterinary Clinic", "Tax Service",
          "Funeral Home", "Pest Control", "Moving & Storage", "Credit Union", "Physical Therapy"]
OTHER_LOCALES = ["es_MX", "en_GB", "de_DE", "it_IT", "fr_FR", "en_IN", "pt_BR"]


class Weighted:
    """A seeded weighted choice from a Faker list or OrderedDict (value -> weight)."""

    def __init__(self, items):
        self.values = list(items)
        weights = list(items.values()) if isinstance(items, dict) else [1.0] * len(self.values)
        self.cumulative = list(itertools.accumulate(weights))
        self.total = self.cumulative[-1]

    def __call__(self, rng):
        return self.values[bisect.bisect(self.cumulative, rng.random() * self.total)]


class Names:
    """Person and business names with Faker's en_US formats, weights and data."""

    def __init__(self):
        person = importlib.import_module("faker.providers.person.en_US").Provider
        company = importlib.import_module("faker.providers.company.en_US").Provider
        self.formats = {"female": Weighted(person.formats_female), "male": Weighted(person.formats_male)}
        self.first = {"female": Weighted(person.first_names_female), "male": Weighted(person.first_names_male)}
        self.prefix = {"female": Weighted(person.prefixes_female), "male": Weighted(person.prefixes_male)}
        self.suffix = {"female": Weighted(person.suffixes_female), "male": Weighted(person.suffixes_male)}
        self.last = Weighted(person.last_names)
        others = [importlib.import_module(f"faker.providers.person.{locale}").Provider for locale in OTHER_LOCALES]
        self.other_first = Weighted(sorted({n for p in others for n in p.first_names}))
        self.other_last = Weighted(sorted({n for p in others for n in p.last_names}))
        self.company_formats = list(company.formats)
        self.company_suffix = Weighted(company.company_suffixes)
        self.trade = Weighted(TRADES)

    def last_name(self, rng):
        return self.last(rng) if rng.random() < 0.75 else self.other_last(rng)

    def person(self, rng):
        sex = "female" if rng.random() < 0.5 else "male"
        first = self.first[sex](rng) if rng.random() < 0.8 else self.other_first(rng)
        if rng.random() < 0.35:
            first += f" {chr(65 + rng.randrange(26))}."
        text = self.formats[sex](rng)
        text = text.replace("{{first_name_%s}}" % sex, first).replace("{{last_name}}", self.last_name(rng))
        if "{{prefix" in text:
            text = text.replace("{{prefix_%s}}" % sex, self.prefix[sex](rng))
        if "{{suffix" in text:
            text = text.replace("{{suffix_%s}}" % sex, self.suffix[sex](rng))
        return text

    def business(self, rng):
        if rng.random() < 0.25:
            return f"{self.last_name(rng)} {self.trade(rng)}"
        pattern = rng.choice(self.company_formats)
        if "company_suffix" in pattern:
            return f"{self.last_name(rng)} {self.company_suffix(rng)}"
        if " and " in pattern:
            return f"{self.last_name(rng)}, {self.last_name(rng)} and {self.last_name(rng)}"
        return f"{self.last_name(rng)}-{self.last_name(rng)}"

    def pool(self, rng, size):
        """size distinct labels: the generic ones first, then 60% persons, 40% businesses."""
        labels = GENERIC[:size]
        seen = set(labels)
        while len(labels) < size:
            label = self.person(rng) if rng.random() < 0.6 else self.business(rng)
            if label not in seen:
                seen.add(label)
                labels.append(label)
        return labels


def numbers(rng, count):
    """count distinct valid numbers, ascending: a uniform sample of the valid space."""
    per_area = len(CODES) * LINES
    result = []
    for index in sorted(rng.sample(range(SPACE), count)):
        area, rest = divmod(index, per_area)
        exchange, line = divmod(rest, LINES)
        result.append(10_000_000_000 + CODES[area] * 10_000_000 + CODES[exchange] * LINES + line)
    return result


def assign(rng, pool, count):
    """A label per row: each pool label once, the rest by Zipf rank, in a random order."""
    labels = list(pool)
    if count > len(pool):
        cumulative = list(itertools.accumulate(1.0 / rank for rank in range(1, len(pool) + 1)))
        labels += rng.choices(pool, cum_weights=cumulative, k=count - len(pool))
    rng.shuffle(labels)
    return labels


def csv_field(label):
    return '"' + label.replace('"', '""') + '"' if "," in label or '"' in label else label


def write(output, rows):
    os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    temporary = output + ".tmp"
    with open(temporary, "w", encoding="utf-8", newline="\n", buffering=1 << 20) as f:
        f.write("number,label\n")
        f.writelines(f"{number},{csv_field(label)}\n" for number, label in rows)
    os.replace(temporary, output)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--distinct", type=float, default=1.0, help="fraction of distinct labels (0 < D <= 1)")
    parser.add_argument("--shuffle", action="store_true", help="rows in random order (default ascending)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("-o", "--output")
    args = parser.parse_args()
    if not 0 < args.distinct <= 1 or args.count < 1:
        parser.error("--count must be positive and --distinct in (0, 1]")
    order = "shuffled" if args.shuffle else "sorted"
    default = os.path.join(ROOT, "Benchmarks", ".corpus", f"labels-{args.count}-{round(args.distinct * 100)}-%s.csv")
    output = args.output or default % order
    if os.path.exists(output):
        print(output)
        return
    # Without -o both orders are written (the rows are the same), as generating is the slow part.
    outputs = {order: output} if args.output else {o: default % o for o in ["sorted", "shuffled"]}
    started = time.monotonic()
    # One generator per part, so the sorted and shuffled corpora share numbers and labels.
    rows = list(zip(numbers(random.Random(f"{args.seed}-numbers"), args.count),
                    assign(random.Random(f"{args.seed}-assign"),
                           Names().pool(random.Random(f"{args.seed}-labels"), max(1, round(args.count * args.distinct))),
                           args.count)))
    distinct = len(set(label for _, label in rows))
    for kind in ["sorted", "shuffled"]:
        if kind == "shuffled":
            random.Random(f"{args.seed}-order").shuffle(rows)
        if kind in outputs:
            write(outputs[kind], rows)
            print(f"[labels-corpus] {args.count:,} rows, {distinct:,} distinct labels, {kind}, Faker {faker.VERSION}, "
                  f"{time.monotonic() - started:.1f} s -> {outputs[kind]}", file=sys.stderr)
    print(output)


if __name__ == "__main__":
    main()
