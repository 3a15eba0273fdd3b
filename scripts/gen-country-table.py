#!/usr/bin/env python3
"""Generates calldir's per-country numbering table from libphonenumber's metadata.

    pip install phonenumbers==9.0.43 regex interegular==0.3.3
    python3 scripts/gen-country-table.py

Writes, all committed (no network and no Python at build time):
  Sources/CallDirNumbers/CountryTableData.swift       the table the normaliser reads
  Sources/CallDirNumbers/ParsingRulesData.swift       libphonenumber's parsing rules of each
                                                      code's main region, and of every other
                                                      region of a shared code (parsing_rules)
  Sources/CNumberTables/ParsingDFA.c                  their DFAs, as a constant C array
  Sources/CNumberTables/PrefixRules.c                 the normaliser's rules by first three
                                                      digits (CountryTable.byPrefix), the same
  Sources/CallDirNumberTypes/NumberTypesData.swift    is_valid_number and number_type as one
                                                      DFA over E.164 digits (type_product.py)
  Tests/CallDirTests/NumberTypesReferenceData.swift   what that DFA is built from: every region's
                                                      national-number and per-type patterns as
                                                      DFAs (see number_types), the tests' reference
  Tests/CallDirTests/Fixtures/country-examples.tsv    libphonenumber's example numbers, and
                                                      variants each country's rules refuse

For every country calling code (regions sharing a code are merged: their possible lengths and
leading digits are unions; trunk and international prefixes are the main region's):
  - the possible lengths of the national significant number (general_desc.possible_length,
    not the local-only lengths, which are numbers dialled without their area code);
  - the digits a national number may start with (from general_desc's pattern, tested with
    partial matching);
  - the national (trunk) prefix (national_prefix: `0`, `8`, `06`, `1` for +1; none for Italy);
  - the international prefixes (international_prefix expanded to the literal strings it
    matches, at most 16 of them; else the preferred one): `011` for +1, `00` for most.
And the ISO 3166 region -> calling code map (`--country CH` is `--country 41`).
"""
import os
import sys

import interegular
import phonenumbers
import regex
from phonenumbers import PhoneMetadata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import type_product  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SWIFT = os.path.join(ROOT, "Sources/CallDirNumbers/CountryTableData.swift")
PARSING = os.path.join(ROOT, "Sources/CallDirNumbers/ParsingRulesData.swift")
PARSING_DFA = os.path.join(ROOT, "Sources/CNumberTables/ParsingDFA.c")
PREFIX_RULES = os.path.join(ROOT, "Sources/CNumberTables/PrefixRules.c")
TYPES_SWIFT = os.path.join(ROOT, "Sources/CallDirNumberTypes/NumberTypesData.swift")
TYPES_REFERENCE = os.path.join(ROOT, "Tests/CallDirTests/NumberTypesReferenceData.swift")
# The order libphonenumber's _number_type_helper tries the types in.
TYPE_ORDER = ["premium_rate", "toll_free", "shared_cost", "voip", "personal_number", "pager", "uan",
              "voicemail", "fixed_line", "mobile"]
FIXTURE = os.path.join(ROOT, "Tests/CallDirTests/Fixtures/country-examples.tsv")
MAX_E164 = 15
TYPES = ["fixed_line", "mobile", "toll_free", "premium_rate", "shared_cost", "personal_number",
         "voip", "pager", "uan", "voicemail"]


def metadata(code, region):
    if region == "001":
        return PhoneMetadata.metadata_for_nongeo_region(code)
    return PhoneMetadata.metadata_for_region(region)


def expand(pattern, limit=100):
    """The literal digit strings `pattern` matches in full, or None if more than `limit`
    (when too many, the shortest ones if few enough: Chile's `0` + `0` of its `00`...)."""
    found = []
    compiled = regex.compile(pattern)

    def walk(prefix):
        if len(found) > 400 or len(prefix) > 8:
            return
        if prefix and compiled.fullmatch(prefix):
            found.append(prefix)
        for d in "0123456789":
            if compiled.fullmatch(prefix + d, partial=True):
                walk(prefix + d)

    walk("")
    if len(found) > limit:
        shortest = min(len(p) for p in found)
        found = [p for p in found if len(p) == shortest]
    return found if 0 < len(found) <= limit else None


def leading_digits(pattern):
    compiled = regex.compile(pattern)
    return [d for d in range(10) if compiled.fullmatch(str(d), partial=True)]


def country_rules():
    rules = {}
    regions = {}
    for code in sorted(phonenumbers.COUNTRY_CODE_TO_REGION_CODE):
        names = phonenumbers.COUNTRY_CODE_TO_REGION_CODE[code]
        lengths, leads, main = set(), set(), None
        for region in names:
            m = metadata(code, region)
            if m is None:
                continue
            main = main or m
            lengths.update(m.general_desc.possible_length or ())
            leads.update(leading_digits(m.general_desc.national_number_pattern))
            if region != "001":
                regions[region] = code
        if code == 1:
            # Canada's 7-digit 3\d{6} (local short codes) is left out: a North American
            # number has 10 national digits, the rule the normaliser applies to +1.
            lengths = {10}
        lengths = {n for n in lengths if n > 0 and n + len(str(code)) <= MAX_E164 + 4}
        if main is None or not lengths:
            continue
        intl = []
        if main.international_prefix:
            intl = expand(main.international_prefix) or []
            if not intl and main.preferred_international_prefix:
                intl = [main.preferred_international_prefix.replace("~", "")]
        intl = sorted(set(p for p in intl if p.isdigit()), key=lambda p: (-len(p), p))
        trunk = main.national_prefix or ""
        rules[code] = dict(lengths=sorted(lengths), leads=sorted(leads), trunk=trunk, intl=intl,
                           regions=[r for r in names if r != "001"])
    return rules, regions


def mask(values):
    out = 0
    for v in values:
        out |= 1 << v
    return out


def write_swift(rules, regions):
    version = phonenumbers.__version__
    lines = [
        f"// Generated by scripts/gen-country-table.py from libphonenumber's metadata as shipped in the",
        f"// PyPI package phonenumbers {version}. Do not edit; run the script to regenerate.",
        "",
        "extension CountryTable {",
        f"    /// The phonenumbers release whose metadata this table comes from.",
        f"    public static let metadataVersion = \"{version}\"",
        "",
        "    /// One row per country calling code: code, possible national lengths (bit n: n digits),",
        "    /// digits a national number may start with (bit d), trunk prefix (\"\" for none),",
        "    /// international prefixes, longest first.",
        "    static let rows: [Row] = [",
    ]
    for code, r in sorted(rules.items()):
        intl = ", ".join(f'"{p}"' for p in r["intl"])
        lines.append(f"        Row({code}, 0x{mask(r['lengths']):X}, 0x{mask(r['leads']):03X}, \"{r['trunk']}\", [{intl}]),"
                     f"  // {' '.join(r['regions'][:6])}{' ...' if len(r['regions']) > 6 else ''}")
    with open(PREFIX_RULES, "w") as f:
        packed = {code: mask(r["lengths"]) & 0xFFFFF | (mask(r["leads"]) & 0x3FF) << 20 for code, r in rules.items()}
        f.write("\n".join(prefix_rules_c_lines(packed, version)))
    lines += ["    ]", "", "    /// ISO 3166-1 alpha-2 region -> calling code.", "    static let regions: [(String, Int)] = ["]
    items = sorted(regions.items())
    for i in range(0, len(items), 8):
        lines.append("        " + " ".join(f'("{k}", {v}),' for k, v in items[i:i + 8]))
    lines += ["    ]", "}", ""]
    with open(SWIFT, "w") as f:
        f.write("\n".join(lines))


def prefix_rules_c_lines(packed, version):
    """CountryTable.byPrefix as a C array in read-only data, computed as Swift's
    `PrefixRules(rules:)` computes it (CountryTableTests compares them): building it from the
    rows at run time cost a one-shot lookup 75K instructions (issue 46). `packed`: by calling
    code, bits 0-19 the possible national lengths, bits 20-29 the possible first digits."""
    table = [0] * 1000
    for prefix in range(100, 1000):
        for length in (1, 2, 3):
            code = prefix // (100 if length == 1 else 10 if length == 2 else 1)
            rule = packed.get(code, 0)
            if rule == 0:
                continue
            entry = rule & 0xFFFFF | length << 30
            if length == 3:
                entry |= rule & (0x3FF << 20)
            else:
                lead = prefix // 10 % 10 if length == 1 else prefix % 10
                if rule >> (20 + lead) & 1:
                    entry |= 0x3FF << 20
            table[prefix] = entry
            break
    lines = [
        "// Generated by scripts/gen-country-table.py from libphonenumber's metadata as shipped in the",
        f"// PyPI package phonenumbers {version}. Do not edit; run the script to regenerate.",
        "//",
        "// CountryTable.byPrefix: by a number's first three digits, the rules of the calling code",
        "// they start with (bits 0-19 possible national lengths, 20-29 possible first national",
        "// digits, 30-31 the code's length; 0: no code).",
        "",
        '#include "CNumberTables.h"',
        "",
        "static const uint32_t rules[1000] = {",
    ]
    for i in range(0, 1000, 8):
        lines.append("    " + ", ".join(f"0x{v:08X}" for v in table[i:i + 8]) + ",")
    return lines + ["};", "", "const uint32_t *calldir_prefix_rules(void) { return rules; }", ""]


def write_fixture(rules):
    """country-examples.tsv: code, kind, E.164 digits. Kinds: valid (an example number),
    short (fewer national digits than any possible length), long (more than any), lead (a
    first national digit no region of the code uses: possible, but not valid)."""
    rows = []
    for code, r in sorted(rules.items()):
        seen = set()
        for region in phonenumbers.COUNTRY_CODE_TO_REGION_CODE[code]:
            m = metadata(code, region)
            if m is None:
                continue
            for t in TYPES:
                desc = getattr(m, t, None)
                ex = desc.example_number if desc is not None else None
                if not ex or ex in seen:
                    continue
                seen.add(ex)
                full = f"{code}{ex}"
                if len(full) > MAX_E164 or len(full) < 7:
                    continue
                n = phonenumbers.parse("+" + full)
                if not phonenumbers.is_possible_number(n) or len(ex) not in r["lengths"]:
                    continue  # (Canada's 7-digit short codes: not North American numbers)
                rows.append((code, "valid", full))
        ex = next((row[2][len(str(code)):] for row in rows if row[0] == code and row[1] == "valid"), None)
        if ex is None:
            continue
        shortest, longest = r["lengths"][0], r["lengths"][-1]
        # Each variant only where libphonenumber agrees (+672 10660 is possible: Norfolk
        # Island's national prefix rule makes it +672 310660); a local-only length (a number
        # without its area code) is short for calldir.
        short = f"{code}{ex[:shortest - 1]}"
        reason = phonenumbers.is_possible_number_with_reason(phonenumbers.parse("+" + short))
        if len(str(code)) + shortest - 1 >= 7 and reason != phonenumbers.ValidationResult.IS_POSSIBLE:
            rows.append((code, "short", short))
        if len(str(code)) + longest + 1 <= MAX_E164:
            rows.append((code, "long", f"{code}{(ex + '5' * 20)[:longest + 1]}"))
        bad = [d for d in range(10) if d not in r["leads"]]
        lead = f"{code}{bad[-1]}{ex[1:]}" if bad else ""
        if bad and len(ex) in r["lengths"] and not phonenumbers.is_valid_number(phonenumbers.parse("+" + lead)):
            rows.append((code, "lead", lead))
    with open(FIXTURE, "w") as f:
        f.write(f"# Generated by scripts/gen-country-table.py (phonenumbers {phonenumbers.__version__}).\n")
        f.write("# code\tkind\tE.164 digits; kind: valid, short, long, lead (impossible first digit)\n")
        for code, kind, digits in rows:
            f.write(f"{code}\t{kind}\t{digits}\n")
    return len(rows)


def digit_dfa(pattern, table):
    """Appends the DFA of `pattern` (full match over digits) to `table`, 11 entries a state: the
    next state for each digit (0xFFFF: no match possible) and 1 if the state accepts. Returns
    the index of its start state."""
    fsm = interegular.parse_pattern(pattern).to_fsm()
    # States in breadth-first order over the digits: interegular's own numbering varies from
    # run to run, and the generated file must not.
    order, seen = [fsm.initial], {fsm.initial}
    for st in order:
        for d in "0123456789":
            nxt = fsm.map.get(st, {}).get(fsm.alphabet[d])
            if nxt is not None and nxt not in seen:
                seen.add(nxt)
                order.append(nxt)
    base = len(table) // 11
    index = {st: base + i for i, st in enumerate(order)}
    for st in order:
        moves = fsm.map.get(st, {})
        for d in "0123456789":
            nxt = moves.get(fsm.alphabet[d])
            table.append(0xFFFF if nxt is None or nxt not in index else index[nxt])
        table.append(1 if st in fsm.finals else 0)
    return index[fsm.initial]


def parsing_rules(rules):
    """For each calling code, its main region's rules as libphonenumber's parse() reads them:
    general_desc's national-number pattern (as a DFA), possible and local-only lengths, the
    national prefix for parsing and its transform rule (regular expressions, used as written:
    few codes have one that is not a plain digit string)."""
    table, rows = [], []
    # Each code's main region first, then (`--country JE`: issue 44) every other region of a
    # shared code, which parses national numbers with its own prefix rule and area code.
    mains = [(code, phonenumbers.COUNTRY_CODE_TO_REGION_CODE[code][0]) for code in sorted(rules)]
    others = [(code, region) for code in sorted(rules) for region in phonenumbers.COUNTRY_CODE_TO_REGION_CODE[code][1:]
              if region != "001" and metadata(code, region) is not None]
    for code, region in mains + others:
        m = metadata(code, region)
        g = m.general_desc
        start = digit_dfa(g.national_number_pattern, table)
        lengths = mask(n for n in (g.possible_length or ()) if n > 0)
        local = mask(g.possible_length_local_only or ())
        npfp, transform = m.national_prefix_for_parsing or "", m.national_prefix_transform_rule or ""
        # A prefix pattern without transform rule or `$` (GB `0|180020`, CN, KR, CO, AU...):
        # a DFA too, whose longest match is what Python's `re.match` takes for these patterns.
        prefix = digit_dfa(npfp, table) if npfp and not npfp.isdigit() and not transform and "$" not in npfp else -1
        # The others (AR, BR, JP...) run as regular expressions, but only on numbers a non-empty
        # prefix of which matches the pattern without its `$` anchors (a DFA: a superset of what
        # the expression matches; an empty match changes nothing).
        regex = npfp and prefix < 0 and (transform or not npfp.isdigit())
        pretest = digit_dfa(npfp.replace("$", ""), table) if regex else -1
        rows.append((code, region, start, lengths, local, npfp, transform, prefix, pretest))
    return table, rows, len(mains)


def number_types(rules):
    """Every region of every code, in libphonenumber's order: its leading-digits pattern (a DFA
    matched as a prefix, -1 for none), general_desc's and each type's national-number pattern
    (DFA start, -1 for no such type) with its possible lengths (bit n; 0: any length)."""
    table, rows = [], []
    for code in sorted(rules):
        for region in phonenumbers.COUNTRY_CODE_TO_REGION_CODE[code]:
            m = metadata(code, region)
            if m is None:
                continue
            leading = digit_dfa(m.leading_digits, table) if m.leading_digits else -1
            descs = [m.general_desc] + [getattr(m, t) for t in TYPE_ORDER]
            starts, lengths = [], []
            for d in descs:
                usable = d is not None and d.national_number_pattern and d.possible_length != (-1,)
                starts.append(digit_dfa(d.national_number_pattern, table) if usable else -1)
                lengths.append(mask(n for n in (d.possible_length or ()) if n > 0) if usable else 0)
            rows.append((code, region, leading, starts, lengths, bool(m.same_mobile_and_fixed_line_pattern)))
    return table, rows


# NumberType's order in Swift (`NumberType.index`); a state's kind is its index + 1, 0 for none.
SWIFT_TYPES = ["fixed_line", "mobile", "fixed_line_or_mobile", "toll_free", "premium_rate", "shared_cost",
               "voip", "personal_number", "pager", "uan", "voicemail"]


def write_types(table, rows):
    """The product DFA into the module, the per-region rows it is built from into the tests."""
    version = phonenumbers.__version__
    header = [
        "// Generated by scripts/gen-country-table.py from libphonenumber's metadata as shipped in the",
        f"// PyPI package phonenumbers {version}. Do not edit; run the script to regenerate.",
        "",
    ]
    nexts, kinds = type_product.build(table, rows, TYPE_ORDER, {k: i + 1 for i, k in enumerate(SWIFT_TYPES)})
    product = []
    for i, kind in enumerate(kinds):
        product += nexts[i * 10:i * 10 + 10] + [kind]
    assert len(kinds) < 0xFFFF
    doc = ["libphonenumber's number_type as one DFA over the digits of an E.164 number, first digit first",
           f"(scripts/type_product.py): {len(kinds)} states of 11 four-hex-digit entries, the next state per",
           "digit, then the state's kind: after the last digit, the type (NumberType.index + 1; 0: not a",
           "valid number). State 1 is the start (a leading 0 stays there); state 0 admits no number."]
    lines = header + ["extension NumberTypes {"] + dfa_lines(product, "typeDFAHex", doc) + ["}", ""]
    os.makedirs(os.path.dirname(TYPES_SWIFT), exist_ok=True)
    with open(TYPES_SWIFT, "w") as f:
        f.write("\n".join(lines))
    lines = header + [
        "@testable import CallDirNumberTypes",
        "",
        "extension NumberTypes {",
        "    /// One row per region, in libphonenumber's order within a calling code: code, start state of",
        "    /// its leading-digits DFA (-1: none), start states of general_desc's and each type's DFA in",
        "    /// `typeOrder` (-1: no such type), their possible lengths (bit n; 0: any), whether fixed-line",
        "    /// and mobile numbers share one pattern.",
        "    static let rows: [Row] = [",
    ]
    for code, region, leading, starts, lengths, same in rows:
        st = ", ".join(str(x) for x in starts)
        ln = ", ".join(f"0x{x:X}" for x in lengths)
        lines.append(f"        Row({code}, {leading}, [{st}], [{ln}], {str(same).lower()}),  // {region}")
    lines += ["    ]", ""] + dfa_lines(table) + ["}", ""]
    with open(TYPES_REFERENCE, "w") as f:
        f.write("\n".join(lines))
    return len(table) // 11, len(kinds)


def swift_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def dfa_lines(table, name="dfaHex", doc=None):
    """The Swift lines of `name`: a DFA table as a multi-line string of hex."""
    hexed = "".join(f"{v:04X}" for v in table)
    doc = doc or [f"The DFAs: {len(table) // 11} states of 11 four-hex-digit entries (next state per digit,",
                  "FFFF for none; then 1 if the state accepts)."]
    lines = [f"    /// {line}" for line in doc] + [f"    static let {name} = \"\"\""]
    for i in range(0, len(hexed), 120):
        lines.append("        " + hexed[i:i + 120] + ("\\" if i + 120 < len(hexed) else ""))
    return lines + ["        \"\"\""]


def write_parsing(table, rows, main_count):
    version = phonenumbers.__version__
    lines = [
        "// Generated by scripts/gen-country-table.py from libphonenumber's metadata as shipped in the",
        f"// PyPI package phonenumbers {version}. Do not edit; run the script to regenerate.",
        "",
        "extension ParsingRules {",
        "    /// One row per calling code, from its main region: code, start state of general_desc's",
        "    /// national-number DFA, possible lengths (bit n), local-only lengths, national prefix",
        "    /// for parsing and transform rule, start state of the national prefix's DFA (-1: none),",
        "    /// start state of the DFA a regular expression's non-empty matches must start with (-1: none).",
        "    static let rows: [Row] = [",
    ]
    def row(code, region, start, lengths, local, npfp, transform, prefix, pretest):
        return f"Row({code}, {start}, 0x{lengths:X}, 0x{local:X}, {swift_string(npfp)}, {swift_string(transform)}, {prefix}, {pretest})"
    for r in rows[:main_count]:
        lines.append(f"        {row(*r)},  // {r[1]}")
    lines += ["    ]", "",
              "    /// The other regions of a shared calling code, the same way: `--country JE` reads national",
              "    /// numbers with these (a calling code, `--country 44`, with its main region's).",
              "    static let regionRows: [(region: String, row: Row)] = ["]
    for r in rows[main_count:]:
        lines.append(f"        (\"{r[1]}\", {row(*r)}),")
    lines += ["    ]", "}", ""]
    with open(PARSING, "w") as f:
        f.write("\n".join(lines))
    with open(PARSING_DFA, "w") as f:
        f.write("\n".join(dfa_c_lines(table, version)))


def dfa_c_lines(table, version):
    """The parsing DFAs as a C array in read-only data: a one-shot lookup of a formatted number
    reads the few states it walks in place, where decoding a Swift string of hex at first use
    cost 11.8M instructions and 90 page faults (issue 46)."""
    lines = [
        "// Generated by scripts/gen-country-table.py from libphonenumber's metadata as shipped in the",
        f"// PyPI package phonenumbers {version}. Do not edit; run the script to regenerate.",
        "//",
        f"// ParsingRules' DFAs: {len(table) // 11} states of 11 entries (the next state per digit, 0xFFFF",
        "// for none; then 1 if the state accepts).",
        "",
        '#include "CNumberTables.h"',
        "",
        f"static const uint16_t dfa[{len(table)}] = {{",
    ]
    for i in range(0, len(table), 11):
        lines.append("    " + ", ".join(f"0x{v:04X}" for v in table[i:i + 11]) + ",")
    return lines + ["};", "", "const uint16_t *calldir_parsing_dfa(void) { return dfa; }",
                    f"size_t calldir_parsing_dfa_count(void) {{ return {len(table)}; }}", ""]


def main():
    rules, regions = country_rules()
    write_swift(rules, regions)
    write_parsing(*parsing_rules(rules))
    states, product = write_types(*number_types(rules))
    print(f"{states} DFA states for the number types, {product} in their product "
          f"({product * 21} bytes once decoded)", file=sys.stderr)
    n = write_fixture(rules)
    print(f"{len(rules)} calling codes, {len(regions)} regions, {n} example rows "
          f"(phonenumbers {phonenumbers.__version__})", file=sys.stderr)


if __name__ == "__main__":
    main()
