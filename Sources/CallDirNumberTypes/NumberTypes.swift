import CallDirNumbers

/// libphonenumber's `is_valid_number` and `number_type`, without a regex engine: every
/// region's national-number and per-type patterns, compiled at generation time into one DFA
/// over the digits of an E.164 number (`NumberTypesData.swift`, by `scripts/gen-country-table.py`
/// and `scripts/type_product.py`: the calling code's digits, then the product of its regions'
/// patterns, minimised; 5,634 states, 118 KB once decoded), whose state after the last digit
/// names the type. A module of its own so that what an app or its Call Directory extension
/// links (`CallDirReader`, `CallDirNumbers`) does not carry the table: `compile --valid-only` and `--types` use it.
public enum NumberTypes {
    /// The type of a valid number (E.164 digits as an integer), nil when libphonenumber's
    /// `is_valid_number` says it is not valid.
    @inline(__always)
    public static func type(ofE164 number: Int64) -> NumberType? {
        guard number >= 100 else { return nil }  // no calling code and national number
        return NumberType(kind: walk.kind(ofE164: number))
    }

    /// The table laid out for the walk (`TypeWalk`), built once.
    static let walk = TypeWalk(decodeDFATable(typeDFAHex))
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

    /// The type of a DFA state's kind (`index` + 1), nil for 0: not a valid number.
    @inline(__always)
    init?(kind: UInt8) {
        switch kind {
        case 1: self = .fixedLine
        case 2: self = .mobile
        case 3: self = .fixedLineOrMobile
        case 4: self = .tollFree
        case 5: self = .premiumRate
        case 6: self = .sharedCost
        case 7: self = .voip
        case 8: self = .personal
        case 9: self = .pager
        case 10: self = .uan
        case 11: self = .voicemail
        default: return nil
        }
    }
}
