"""libphonenumber's `number_type` (and so `is_valid_number`) as one DFA over the digits of an
E.164 number, for scripts/gen-country-table.py.

The input is the per-region DFAs `number_types` builds (11 entries a state: the next state per
digit, 0xFFFF for none, then 1 if the state accepts) and its rows (code, region, leading-digits
start, general_desc's and each type's start in TYPE_ORDER, their possible lengths, whether
fixed line and mobile share a pattern). The output is one deterministic automaton whose state
after the last digit names the type:

  - from the start state, the calling-code digits lead (a trie: codes are prefix-free; a
    leading 0 stays in the start state, so a number may be walked with leading zeros) into
  - one product automaton per calling code, over every region of the code and every pattern
    of each region, with the national digit count in its state (the possible lengths), whose
    states carry the type libphonenumber gives a number ending there (the first region whose
    leading digits match the number, or that gives it a type; then `_number_type_helper`'s
    order of precedence);
  - minimised (an acyclic automaton: states with the same type and the same successors are
    one), across codes too, then numbered breadth first from the start (state 0: no number
    of any type follows).
"""

NONE = -1  # a pattern that can no longer match
MATCHED = -2  # leading digits already matched as a prefix (libphonenumber's `match`)
NO_LEADING = -3  # a region without a leading-digits pattern
MAX_NATIONAL = 18  # an E.164 number of 19 digits (Int64) with a 1-digit calling code


class Patterns:
    """The per-region DFAs as `number_types` wrote them."""

    def __init__(self, table):
        self.table = table

    def next(self, state, digit):
        if state < 0:
            return NONE
        value = self.table[state * 11 + digit]
        return NONE if value == 0xFFFF else value

    def accepts(self, state):
        return state >= 0 and self.table[state * 11 + 10] == 1


def region_type(patterns, states, row, length, type_order):
    """`_number_type_helper` for one region whose patterns are in `states` after `length`
    digits (states[0]: general_desc, then each type in `type_order`)."""
    lengths, same = row[4], row[5]

    def matches(i):
        mask = lengths[i]
        if mask and (length >= 32 or mask >> length & 1 == 0):
            return False
        return patterns.accepts(states[i])

    if not matches(0):
        return None
    for i, kind in enumerate(type_order):
        if kind not in ("fixed_line", "mobile") and matches(i + 1):
            return kind
    fixed, mobile = type_order.index("fixed_line") + 1, type_order.index("mobile") + 1
    if matches(fixed):
        return "fixed_line_or_mobile" if same or matches(mobile) else "fixed_line"
    return "mobile" if not same and matches(mobile) else None


class CodeProduct:
    """The product automaton of one calling code's regions (rows in libphonenumber's order).
    A state is (national digits read, one entry per region: None when the region can no longer
    decide, else (leading state, pattern states...))."""

    def __init__(self, patterns, rows, type_order):
        self.patterns, self.rows, self.type_order = patterns, rows, type_order

    def start(self):
        regions = [((row[2] if row[2] >= 0 else NO_LEADING),) + tuple(row[3]) for row in self.rows]
        return self.canonical(0, regions)

    def canonical(self, length, regions):
        """Drops what can no longer matter, so that equal futures are equal states: a region
        whose leading digits cannot match, or without leading digits whose general_desc died;
        every region after one whose leading digits matched."""
        out, claimed = [], False
        for entry, row in zip(regions, self.rows):
            if claimed or entry is None:
                out.append(None)
                continue
            leading, general = entry[0], entry[1]
            has_leading = row[2] >= 0
            if has_leading and leading == NONE:
                out.append(None)
                continue
            if general == NONE:
                entry = (leading,) + (NONE,) * (len(entry) - 1)
                if not has_leading:
                    out.append(None)
                    continue
            claimed = has_leading and leading == MATCHED
            out.append(entry)
        return None if all(e is None for e in out) else (length, tuple(out))

    def step(self, state, digit):
        length, regions = state
        if length >= MAX_NATIONAL:
            return None
        moved = []
        for entry, row in zip(regions, self.rows):
            if entry is None:
                moved.append(None)
                continue
            leading = entry[0]
            if row[2] >= 0:
                leading = MATCHED if leading == MATCHED or self.patterns.accepts(leading) else self.patterns.next(leading, digit)
            moved.append((leading,) + tuple(self.patterns.next(s, digit) for s in entry[1:]))
        return self.canonical(length + 1, moved)

    def type(self, state):
        """libphonenumber's `number_type` of a number whose national digits end in `state`."""
        if state is None:
            return None
        length, regions = state
        for entry, row in zip(regions, self.rows):
            if entry is None:
                continue
            if row[2] >= 0:
                if entry[0] == MATCHED or self.patterns.accepts(entry[0]):
                    return region_type(self.patterns, entry[1:], row, length, self.type_order)
            else:
                found = region_type(self.patterns, entry[1:], row, length, self.type_order)
                if found:
                    return found
        return None

    def states(self):
        """Every reachable state and its 10 successors (None: no number of any type)."""
        start = self.start()
        order, edges = [start], {}
        seen = {start}
        for state in order:
            if state is None:
                continue
            edges[state] = [self.step(state, d) for d in range(10)]
            for nxt in edges[state]:
                if nxt not in seen:
                    seen.add(nxt)
                    order.append(nxt)
        return start, order, edges


class Minimiser:
    """Hash-consing of (type, successors) over acyclic automata: one id per distinct future,
    shared across calling codes. Id 0: the dead state (no type, every digit leads back to it)."""

    def __init__(self):
        self.ids = {(None, (0,) * 10): 0}
        self.nodes = [(None, (0,) * 10)]

    def intern(self, kind, successors):
        key = (kind, tuple(successors))
        if key not in self.ids:
            self.ids[key] = len(self.nodes)
            self.nodes.append(key)
        return self.ids[key]

    def add_code(self, product):
        start, order, edges = product.states()
        if start is None:
            return 0
        ids = {None: 0}
        # Successors have one more digit: intern the deepest states first.
        for state in sorted((s for s in order if s is not None), key=lambda s: -s[0]):
            ids[state] = self.intern(product.type(state), [ids[n] for n in edges[state]])
        return ids[start]


def build(table, rows, type_order, type_codes):
    """The whole automaton: (next, kinds) with `next` 10 entries a state and `kinds` the type
    code (`type_codes[kind]`, 0 for none) of each state; state 1 is the start."""
    patterns = Patterns(table)
    by_code = {}
    for row in rows:
        by_code.setdefault(row[0], []).append(row)
    minimiser = Minimiser()
    starts = {code: minimiser.add_code(CodeProduct(patterns, regions, type_order))
              for code, regions in sorted(by_code.items())}

    def trie(prefix):
        successors = []
        for d in range(10):
            code = prefix * 10 + d
            if code in starts:
                successors.append(starts[code])
            elif prefix == 0 and d == 0:
                successors.append(-1)  # leading zeros: the start state itself
            elif code < 100 and any(c // 10 ** (len(str(c)) - len(str(code))) == code for c in starts if c > code):
                successors.append(trie(code))
            else:
                successors.append(0)
        if prefix == 0:
            return successors
        return minimiser.intern(None, successors)

    root = trie(0)
    root_id = len(minimiser.nodes)
    minimiser.nodes.append((None, tuple(root_id if s == -1 else s for s in root)))
    return renumber(minimiser.nodes, root_id, type_codes)


def renumber(nodes, root, type_codes):
    """Breadth first from the start (state 1), the dead state 0: the first digits' states,
    which every number walks, sit together."""
    new = {0: 0, root: 1}
    order = [0, root]
    for old in order:
        for s in nodes[old][1]:
            if s not in new:
                new[s] = len(order)
                order.append(s)
    nexts, kinds = [], []
    for old in order:
        kind, successors = nodes[old]
        nexts.extend(new[s] for s in successors)
        kinds.append(type_codes[kind] if kind else 0)
    return nexts, kinds
