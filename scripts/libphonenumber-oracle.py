#!/usr/bin/env python3
"""libphonenumber's verdicts on a fresh corpus of numbers written every way people write them:
the reference the differential test (`LibphonenumberDifferentialTests`) compares calldir with.

    scripts/libphonenumber-oracle.py SEED [COUNT_PER_REGION]

Writes to stdout one row per input, tab-separated:
    code    --country: a calling code (its main region's rules), a region code (that region's own
            rules: every region that is not its code's main region, JE, CX, BS...), or 0 for none
            (the digits are E.164)
    region  the ISO region the input was made for (the calling code for a non-geographic one)
    shape   how it is written (e164, intl, national, trunk0-after-cc, ...)
    input   the field as a list would hold it
    e164    libphonenumber's E.164 digits (no '+') when it parses the input, else '-'
    possible  1 or 0 (is_possible_number), L when possible only as a local number
    valid     1 or 0 (is_valid_number)
    type    phonenumbers' number type name, '-' when not valid
Then every emergency number of the short-number metadata (shape `emergency-...`: `112#`, `*911`,
`sip:911@example.com`, fullwidth and Arabic-Indic digits...), for its region's calling code and
without --country, with type EMERGENCY when is_emergency_number says so, else '-'.
Every region libphonenumber supports and every non-geographic calling code (+800, +882...:
international forms only). A region that shares its calling code also gets its local numbers
(`local`: BS 7 digits, JE 6, CX 8, which its national prefix rule completes with the area code),
with --country REGION and, as libphonenumber's main region reads them, with the calling code.
Without --country (code 0) the reference reads an input as calldir's rule 5 says: `+` or
`00` then E.164 digits, or bare E.164 digits; libphonenumber parses them with a `+` in front.

Needs the PyPI package phonenumbers at the version scripts/gen-country-table.py generated the
table from (CountryTable.metadataVersion); `scripts/setup --tests` installs it into .venv-numbers.
"""
import random
import sys

import phonenumbers
from phonenumbers import NumberParseException, PhoneMetadata, PhoneNumberFormat, PhoneNumberType

# Every region (245) and every non-geographic calling code (9; metadata under "001").
REGIONS = sorted(phonenumbers.SUPPORTED_REGIONS)
NON_GEO = sorted(phonenumbers.COUNTRY_CODES_FOR_NON_GEO_REGIONS)
TYPES = ["fixed_line", "mobile", "toll_free", "premium_rate", "shared_cost", "personal_number",
         "voip", "pager", "uan", "voicemail"]
TYPE_NAMES = {v: k for k, v in vars(PhoneNumberType).items() if isinstance(v, int) and k.isupper()}


def digits(text):
    return "".join(c for c in text if c.isdigit())


def meta_of(region):
    """A region's metadata; a non-geographic code's when `region` is its code (an int)."""
    if isinstance(region, int):
        return PhoneMetadata.metadata_for_nongeo_region(region)
    return PhoneMetadata.metadata_for_region(region)


def country_option(region):
    """What --country reads the region's national numbers with: the calling code for a code's
    main region, the region itself for the others (JE, CX, BS...)."""
    code = meta_of(region).country_code
    return code if phonenumbers.region_code_for_country_code(code) == region else region


def valid_bases(region, rng, count):
    """Random valid numbers of the region: each type's example with its tail redrawn."""
    meta = meta_of(region)
    examples = [getattr(meta, t).example_number for t in TYPES
                if getattr(meta, t, None) is not None and getattr(meta, t).example_number]
    bases, tries = [], 0
    while len(bases) < count and tries < count * 40 and examples:
        tries += 1
        ex = rng.choice(examples)
        keep = rng.randint(min(2, len(ex)), len(ex))
        nsn = ex[:keep] + "".join(rng.choice("0123456789") for _ in range(len(ex) - keep))
        try:
            n = phonenumbers.parse("+%d%s" % (meta.country_code, nsn))
        except NumberParseException:
            continue
        if phonenumbers.is_valid_number_for_region(n, "001" if isinstance(region, int) else region):
            bases.append(n)
    return bases


def shapes(region, n, rng):
    """(shape, field) pairs writing number n as people do, for --country of its region."""
    meta = meta_of(region)
    cc = str(n.country_code)
    nsn = phonenumbers.national_significant_number(n)
    e164 = cc + nsn
    out = [
        ("e164", "+" + e164),
        ("intl", phonenumbers.format_number(n, PhoneNumberFormat.INTERNATIONAL)),
        ("national", phonenumbers.format_number(n, PhoneNumberFormat.NATIONAL)),
        ("paren0", "+%s (0)%s" % (cc, nsn)),
        ("trunk0-after-cc", "+%s 0%s" % (cc, nsn)),
        ("00", "00" + e164),
        ("011", "011 " + e164),
        ("nsn", nsn),
        ("bare-e164", e164),
    ]
    idd = meta.preferred_international_prefix or meta.international_prefix
    if idd and idd.isdigit():
        out.append(("idd", "%s %s %s" % (idd, cc, nsn)))
    if meta.national_prefix:
        out.append(("trunk", meta.national_prefix + nsn))
    # The number without the area code the region's national prefix rule puts back
    # (`([3-8]\d{6})$|1` and `242\1` for BS): what a local list holds.
    rule = meta.national_prefix_transform_rule or ""
    if rule.endswith("\\1") and rule[:-2].isdigit() and nsn.startswith(rule[:-2]):
        out.append(("local", nsn[len(rule) - 2:]))
    return out


def mutate(field, rng):
    """A digit dropped, added or changed somewhere in the field."""
    places = [i for i, c in enumerate(field) if c.isdigit()]
    if not places:
        return field
    i = rng.choice(places)
    kind = rng.randrange(3)
    d = rng.choice("0123456789")
    if kind == 0:
        return field[:i] + field[i + 1:]
    if kind == 1:
        return field[:i] + d + field[i:]
    return field[:i] + d + field[i + 1:]


def verdict(field, region):
    if isinstance(region, int):
        region = None  # a non-geographic code: international forms only
    try:
        n = phonenumbers.parse(field, region)
    except NumberParseException:
        return "-", 0, 0, "-"
    e164 = "%d%s" % (n.country_code, phonenumbers.national_significant_number(n))
    valid = phonenumbers.is_valid_number(n)
    kind = TYPE_NAMES.get(phonenumbers.number_type(n), "-") if valid else "-"
    reason = phonenumbers.is_possible_number_with_reason(n)
    possible = "L" if reason == phonenumbers.ValidationResult.IS_POSSIBLE_LOCAL_ONLY else int(reason == 0)
    return e164, possible, int(valid), kind


INTERNATIONAL = ("e164", "intl", "paren0", "00", "bare-e164", "random")


def rows(region, rng, per_region):
    code = meta_of(region).country_code
    option = country_option(region)
    geographic = not isinstance(region, int)
    fields = []
    bases = valid_bases(region, rng, max(4, per_region // 30))
    for n in bases:
        for shape, field in shapes(region, n, rng):
            fields.append((shape, field))
            fields.append((shape + "~", mutate(field, rng)))
    if geographic and (meta_of(region).national_prefix_transform_rule or "").endswith("\\1"):
        for n in valid_bases(region, rng, max(4, per_region // 30)):  # more local numbers
            fields += [(shape + tilde, mutate(field, rng) if tilde else field)
                       for shape, field in shapes(region, n, rng) if shape == "local" for tilde in ("", "~")]
    for _ in range(per_region // 4):  # random digits: lengths 4-17, every first digit
        length = rng.randint(4, 17)
        first = str(rng.randrange(10))
        body = first + "".join(rng.choice("0123456789") for _ in range(length - 1))
        fields.append(("random", rng.choice(["", "+"]) + body))
    for shape, field in fields:
        if geographic:
            yield (option, region, shape, field) + verdict(field, region)
            if option != code and shape.startswith("local"):
                # --country CODE: the main region's rules, as the docs say (not the area code).
                main = phonenumbers.region_code_for_country_code(code)
                yield (code, region, "code-" + shape, field) + verdict(field, main)
        # Without --country only international forms and bare E.164 digits are E.164.
        if shape.rstrip("~") in INTERNATIONAL:
            plain = "+" + field[2:] if field.startswith("00") else field if field.startswith("+") else "+" + field
            yield (0, region, shape, field) + verdict(plain, None)


# The shapes libphonenumber's is_emergency_number reads (extract_possible_number, then
# normalize_digits_only): the emergency test writes every emergency number each way.
EMERGENCY_SHAPES = [
    ("plain", "%s"), ("hash", "%s#"), ("star", "*%s"), ("semicolon", "%s;"), ("tel", "Tel: %s"),
    ("sip", "sip:%s@example.com"), ("fullwidth", None), ("arabic-indic", None), ("persian", None),
]
SCRIPTS = {"fullwidth": 0xFF10, "arabic-indic": 0x0660, "persian": 0x06F0}


def emergency_rows():
    """Every emergency number of every region of the short-number metadata, in every shape,
    with is_emergency_number's verdict for that region (type column EMERGENCY or -)."""
    import re
    from phonenumbers import SUPPORTED_SHORT_REGIONS, country_code_for_region, shortnumberinfo
    for region in sorted(SUPPORTED_SHORT_REGIONS):
        desc = PhoneMetadata.short_metadata_for_region(region).emergency
        if desc is None or not desc.national_number_pattern:
            continue
        pattern = re.compile(desc.national_number_pattern)
        numbers = [s for length in desc.possible_length
                   for s in (str(n).zfill(length) for n in range(10 ** length)) if pattern.fullmatch(s)]
        for number in numbers:
            for shape, form in EMERGENCY_SHAPES:
                field = form % number if form else "".join(chr(SCRIPTS[shape] + int(d)) for d in number)
                verdict = "EMERGENCY" if shortnumberinfo.is_emergency_number(field, region) else "-"
                yield (country_code_for_region(region), region, "emergency-" + shape, field, "-", 0, 0, verdict)
            # Without --country: an emergency number of any region is one.
            yield (0, region, "emergency-plain", number, "-", 0, 0, "EMERGENCY")


def main():
    seed = int(sys.argv[1])
    per_region = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    rng = random.Random(seed)
    out = sys.stdout
    out.write("# phonenumbers %s seed %d\n" % (phonenumbers.__version__, seed))
    for region in REGIONS + NON_GEO:
        for row in rows(region, rng, per_region):
            out.write("\t".join(str(x) for x in row) + "\n")
    for row in emergency_rows():
        out.write("\t".join(str(x) for x in row) + "\n")


if __name__ == "__main__":
    main()
