/// The tables of `NumberTypes` laid out for the walk: immortal memory read through raw
/// pointers (no reference counting, no bounds checks, no allocation per number), the region
/// rows of each calling code found in one read, and a number's national digits packed once
/// into a 64-bit word (4 bits a digit, first digit lowest) so that each DFA walk is a chain of
/// table reads with no division.
struct TypeWalk: @unchecked Sendable {
    /// The DFAs: 11 entries a state (next state per digit 0-9, 0xFFFF for none; accepting flag).
    let dfa: UnsafeMutablePointer<UInt16>
    /// Per row, `slots` entries: general_desc's and each type's start (typeOrder), then the
    /// leading-digits start; -1 for none.
    let starts: UnsafeMutablePointer<Int32>
    /// Per row, the possible national lengths of general_desc and each type (all ones: any).
    let lengths: UnsafeMutablePointer<UInt32>
    let sameMobileAndFixedLine: UnsafeMutablePointer<Bool>
    /// Per calling code 0...999: first row and row count.
    let rowsByCode: UnsafeMutablePointer<(first: Int32, count: Int32)>

    static let slots = 12
    static let leadingSlot = 11
    static let fixedLineSlot = 9
    static let mobileSlot = 10

    init(dfa table: [UInt16], rows: [NumberTypes.Row]) {
        dfa = .allocate(capacity: table.count)
        dfa.initialize(from: table, count: table.count)
        starts = .allocate(capacity: rows.count * Self.slots)
        lengths = .allocate(capacity: rows.count * Self.slots)
        sameMobileAndFixedLine = .allocate(capacity: rows.count)
        rowsByCode = .allocate(capacity: 1000)
        rowsByCode.initialize(repeating: (0, 0), count: 1000)
        for (i, row) in rows.enumerated() {
            for slot in 0..<Self.slots {
                let described = slot < row.starts.count
                starts[i * Self.slots + slot] = slot == Self.leadingSlot ? row.leading : described ? row.starts[slot] : -1
                let length = described ? row.lengths[slot] : 0
                lengths[i * Self.slots + slot] = length == 0 ? ~0 : length
            }
            sameMobileAndFixedLine[i] = row.sameMobileAndFixedLine
            let entry = rowsByCode[row.code]
            rowsByCode[row.code] = entry.count == 0 ? (Int32(i), 1) : (entry.first, entry.count + 1)
        }
    }

    /// `NumberTypes.type(ofE164:)`: region_code_for_number, then the region's type.
    @inline(__always)
    func type(ofE164 number: Int64, code: Int) -> NumberType? {
        let digits = E164Digits(number, codeDigits: code < 10 ? 1 : code < 100 ? 2 : 3)
        let entry = rowsByCode[code]
        var row = Int(entry.first)
        let end = row + Int(entry.count)
        while row < end {
            let leading = starts[row * Self.slots + Self.leadingSlot]
            if leading >= 0 {
                if walk(digits, from: leading, prefix: true) { return type(digits, row: row) }
            } else if let found = type(digits, row: row) {
                return found
            }
            row += 1
        }
        return nil
    }

    /// libphonenumber's `_number_type_helper` for one region row.
    @inline(__always)
    func type(_ digits: E164Digits, row: Int) -> NumberType? {
        let matched = matching(digits, row: row)
        guard matched & 1 == 1 else { return nil }
        for slot in 1..<Self.fixedLineSlot where matched >> slot & 1 == 1 {
            return NumberTypes.typeOrder[slot - 1]
        }
        let same = sameMobileAndFixedLine[row]
        let mobile = matched >> Self.mobileSlot & 1 == 1
        if matched >> Self.fixedLineSlot & 1 == 1 { return same || mobile ? .fixedLineOrMobile : .fixedLine }
        return !same && mobile ? .mobile : nil
    }

    /// Which of the row's patterns (bit = slot: general_desc, then each type) match the whole
    /// national number. The DFAs are walked side by side, a digit at a time: their table reads
    /// do not depend on one another, so the processor overlaps their cache misses (the tables
    /// are far larger than L1), where one walk after another would wait for each in turn.
    @inline(__always)
    func matching(_ digits: E164Digits, row: Int) -> UInt32 {
        let base = row * Self.slots
        let length = UInt32(truncatingIfNeeded: digits.count)
        return withUnsafeTemporaryAllocation(of: (state: Int32, slot: Int32).self, capacity: Self.leadingSlot) { live in
            var alive = 0
            for slot in 0..<Self.leadingSlot {
                let start = starts[base + slot]
                guard start >= 0, lengths[base + slot] >> length & 1 == 1 else { continue }
                if slot > 0 && alive == 0 { return 0 }  // general_desc cannot match
                live[alive] = (start, Int32(slot))
                alive &+= 1
            }
            var packed = digits.packed
            var left = digits.count
            while left > 0 && alive > 0 {
                let digit = Int(truncatingIfNeeded: packed & 15)
                var kept = 0
                for i in 0..<alive {
                    let next = dfa[Int(truncatingIfNeeded: live[i].state) &* 11 &+ digit]
                    if next != 0xFFFF {
                        live[kept] = (Int32(truncatingIfNeeded: next), live[i].slot)
                        kept &+= 1
                    }
                }
                if kept == 0 || live[0].slot != 0 { return 0 }  // general_desc no longer matches
                alive = kept
                packed >>= 4
                left &-= 1
            }
            var matched: UInt32 = 0
            for i in 0..<alive where dfa[Int(truncatingIfNeeded: live[i].state) &* 11 &+ 10] == 1 {
                matched |= 1 << UInt32(truncatingIfNeeded: live[i].slot)
            }
            return matched
        }
    }

    /// Runs a DFA over the national digits: in full, or (`prefix`) until it accepts.
    @inline(__always)
    func walk(_ digits: E164Digits, from start: Int32, prefix: Bool) -> Bool {
        var state = Int(start)
        var packed = digits.packed
        var left = digits.count
        while left > 0 {
            if prefix, dfa[state &* 11 &+ 10] == 1 { return true }
            let next = dfa[state &* 11 &+ Int(truncatingIfNeeded: packed & 15)]
            if next == 0xFFFF { return false }
            state = Int(truncatingIfNeeded: next)
            packed >>= 4
            left &-= 1
        }
        return dfa[state &* 11 &+ 10] == 1
    }
}

/// The national significant number of an E.164 number (its digits after the calling code,
/// leading zeros included), 4 bits a digit with the first digit in the lowest bits.
struct E164Digits {
    let packed: UInt64
    let count: Int

    @inline(__always)
    init(_ e164: Int64, codeDigits: Int) {
        var rest = UInt64(e164)
        var packed: UInt64 = 0
        var total = 0
        while rest > 0 {
            packed = packed << 4 | rest % 10
            rest /= 10
            total &+= 1
        }
        // The lowest 4 bits now hold the first digit: drop the calling code's.
        count = max(0, total - codeDigits)
        self.packed = packed >> UInt64(4 * (total - count))
    }
}
