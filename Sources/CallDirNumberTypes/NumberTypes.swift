import CallDirReader

/// libphonenumber's `is_valid_number` and `number_type`, without a regex engine: every
/// region's national-number and per-type patterns, compiled at generation time into DFAs over
/// digits (`NumberTypesData.swift`, by `scripts/gen-country-table.py`; about 33,000 states,
/// 731 KB once decoded). A module of its own so that what an app or its Call Directory
/// extension links (`CallDirReader`) does not carry the tables: `compile --valid-only` and
/// `--types` use it.
public enum NumberTypes {
    /// One region's patterns as the generator writes them.
    struct Row: Sendable {
        let code: Int
        /// Start of the leading-digits DFA (matched as a prefix), -1 for none.
        let leading: Int32
        /// Starts of general_desc's and each type's DFA, in `typeOrder` after the general one.
        let starts: [Int32]
        /// Possible lengths of each (bit n; 0: any length).
        let lengths: [UInt32]
        let sameMobileAndFixedLine: Bool

        init(_ code: Int, _ leading: Int32, _ starts: [Int32], _ lengths: [UInt32], _ same: Bool) {
            self.code = code
            self.leading = leading
            self.starts = starts
            self.lengths = lengths
            sameMobileAndFixedLine = same
        }
    }

    /// The types in the order libphonenumber tries them (fixed line and mobile last).
    static let typeOrder: [NumberType] = [.premiumRate, .tollFree, .sharedCost, .voip, .personal, .pager, .uan,
                                          .voicemail, .fixedLine, .mobile]

    static let dfa = decodeDFATable(dfaHex)

    /// The rows of each calling code 0...999, in libphonenumber's region order (`rows` is
    /// sorted by code).
    static let byCode: [Range<Int>] = {
        var table = [Range<Int>](repeating: 0..<0, count: 1000)
        for (i, row) in rows.enumerated() {
            table[row.code] = table[row.code].isEmpty ? i..<(i + 1) : table[row.code].lowerBound..<(i + 1)
        }
        return table
    }()

    /// The type of a valid number (E.164 digits as an integer), nil when libphonenumber's
    /// `is_valid_number` says it is not valid.
    public static func type(ofE164 number: Int64) -> NumberType? {
        guard number > 0, let code = CountryTable.callingCode(ofE164: number) else { return nil }
        if number < 10_000_000_000_000_000 { return walk.type(ofE164: number, code: code) }
        return slowType(ofE164: number, code: code)
    }

    /// The tables laid out for the walk (`TypeWalk`), built once.
    static let walk = TypeWalk(dfa: dfa, rows: rows)

    /// The same verdict for numbers of 17 to 19 digits (none is valid E.164, but the
    /// reference decides them too), which do not fit `E164Digits`: the rows read as generated.
    static func slowType(ofE164 number: Int64, code: Int) -> NumberType? {
        let national = NationalDigits(number, code: code)
        // region_code_for_number: the first region whose leading digits match, or that gives
        // the number a type; the number is then valid when that region gives it a type.
        for index in byCode[code] {
            let row = rows[index]
            if row.leading >= 0 {
                if matches(national, from: row.leading, prefix: true) { return type(national, row) }
            } else if let found = type(national, row) {
                return found
            }
        }
        return nil
    }

    /// libphonenumber's `_number_type_helper`.
    static func type(_ national: NationalDigits, _ row: Row) -> NumberType? {
        guard matchesDesc(national, row, 0) else { return nil }
        for (i, kind) in typeOrder.enumerated() where kind != .fixedLine && kind != .mobile {
            if matchesDesc(national, row, i + 1) { return kind }
        }
        let fixed = typeOrder.firstIndex(of: .fixedLine)! + 1
        let mobile = typeOrder.firstIndex(of: .mobile)! + 1
        if matchesDesc(national, row, fixed) {
            return row.sameMobileAndFixedLine || matchesDesc(national, row, mobile) ? .fixedLineOrMobile : .fixedLine
        }
        return !row.sameMobileAndFixedLine && matchesDesc(national, row, mobile) ? .mobile : nil
    }

    static func matchesDesc(_ national: NationalDigits, _ row: Row, _ index: Int) -> Bool {
        let start = row.starts[index]
        guard start >= 0 else { return false }
        let lengths = row.lengths[index]
        if lengths != 0, national.count >= 32 || lengths >> UInt32(national.count) & 1 == 0 { return false }
        return matches(national, from: start, prefix: false)
    }

    /// Runs a DFA over the national digits: in full, or (`prefix`) until it accepts.
    static func matches(_ national: NationalDigits, from start: Int32, prefix: Bool) -> Bool {
        dfa.withUnsafeBufferPointer { dfa in
            var state = Int(start)
            var scale = national.topScale
            while scale > 0 {
                if prefix, dfa[state &* 11 &+ 10] == 1 { return true }
                let next = dfa[state &* 11 &+ Int(national.value / scale % 10)]
                if next == 0xFFFF { return false }
                state = Int(next)
                scale /= 10
            }
            return dfa[state &* 11 &+ 10] == 1
        }
    }
}

/// The national significant number of an E.164 number: its digits after the calling code,
/// leading zeros included.
struct NationalDigits {
    let value: Int64
    let count: Int
    /// 10^(count - 1): the place of the first digit (0 for no digits).
    let topScale: Int64

    init(_ e164: Int64, code: Int) {
        count = E164.digitCount(e164) - (code < 10 ? 1 : code < 100 ? 2 : 3)
        var scale: Int64 = 1
        for _ in 0..<count { scale &*= 10 }
        value = e164 % scale
        topScale = scale / 10
    }
}

/// libphonenumber's number types, as `--types` names them.
public enum NumberType: String, CaseIterable, Sendable {
    /// A fixed (landline) number.
    case fixedLine = "fixed-line"
    /// A mobile number.
    case mobile
    /// Where one pattern covers both (the US, Canada...).
    case fixedLineOrMobile = "fixed-line-or-mobile"
    /// Free to the caller.
    case tollFree = "toll-free"
    /// Charged above the normal rate.
    case premiumRate = "premium-rate"
    /// Charged partly to the caller, partly to the receiver.
    case sharedCost = "shared-cost"
    /// A voice-over-IP number.
    case voip
    /// A personal number, routed where its owner chooses.
    case personal
    /// A pager.
    case pager
    /// A universal access number (one number for a company's offices).
    case uan
    /// Direct access to a voicemail box.
    case voicemail
}

extension NumberType {
    /// The type's position in `allCases`, for tables indexed by type.
    @inline(__always)
    public var index: Int {
        switch self {
        case .fixedLine: 0
        case .mobile: 1
        case .fixedLineOrMobile: 2
        case .tollFree: 3
        case .premiumRate: 4
        case .sharedCost: 5
        case .voip: 6
        case .personal: 7
        case .pager: 8
        case .uan: 9
        case .voicemail: 10
        }
    }
}
