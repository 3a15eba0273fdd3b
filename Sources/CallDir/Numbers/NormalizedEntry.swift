import CallDirReader

/// What one field of an input list becomes after normalisation.
public enum NormalizedEntry: Equatable, Sendable {
    /// One number, E.164 digits as CallKit's Int64.
    case number(Int64)
    /// A wildcard pattern (`33162######`) or explicit range (`33162000000-33162999999`).
    case range(NumberRange)
}

/// Why a field could not be made a possible E.164 number. The raw values are stable: they
/// appear in summaries, `--rejects` files and JSON output. It is an `Error` only so that it can
/// be the failure of a `Result`; a rejected row is a diagnostic, not a thrown error.
public enum RejectReason: String, Error, Sendable, CaseIterable, Comparable {
    case empty = "empty"
    case invalidCharacter = "invalid-character"
    case tooShort = "too-short"
    case tooLong = "too-long"
    case missingCountryCode = "missing-country-code"
    case invalidAreaCode = "invalid-area-code"
    case invalidPattern = "invalid-pattern"
    case invalidRange = "invalid-range"

    /// A sentence for diagnostics.
    public var explanation: String {
        switch self {
        case .empty: return "no digits"
        case .invalidCharacter: return "contains a character that is not a digit or phone punctuation"
        case .tooShort: return "too short to be an E.164 number"
        case .tooLong: return "longer than E.164's 15 digits"
        case .missingCountryCode: return "national number without a country code (use --country)"
        case .invalidAreaCode: return "not a possible North American number (area code or exchange starts with 0 or 1)"
        case .invalidPattern: return "'#' wildcards must be trailing digits of a number"
        case .invalidRange: return "a range needs two numbers of equal length, first <= last"
        }
    }

    public static func < (a: RejectReason, b: RejectReason) -> Bool { a.rawValue < b.rawValue }
}
