/// Why a row did not become an entry, or why a caller ID is not a number that can be looked
/// up: the one list of reasons. The raw values are stable: they appear in summaries,
/// `--rejects` files, `calldir lookup --json` and the daemon's answers. It is an `Error` only
/// so that it can be the failure of a `Result`; a rejected row is a diagnostic, not a thrown
/// error.
public enum RejectReason: String, Error, Sendable, CaseIterable, Comparable, CustomStringConvertible {
    // What the normaliser says about a field (`NumberNormalizer.normalize`).
    /// No digits.
    case empty = "empty"
    /// A character that is neither a digit nor phone punctuation.
    case invalidCharacter = "invalid-character"
    /// Fewer digits than its country (or E.164) allows.
    case tooShort = "too-short"
    /// More digits than its country (or E.164) allows.
    case tooLong = "too-long"
    /// A national number with no `--country` to place it.
    case missingCountryCode = "missing-country-code"
    /// A calling code no country uses.
    case unknownCountryCode = "unknown-country-code"
    /// No number of its country starts with that digit.
    case invalidLeadingDigit = "invalid-leading-digit"
    /// Not a possible North American number (area code or exchange starts with 0 or 1).
    case invalidAreaCode = "invalid-area-code"
    /// '#' wildcards that are not the trailing digits of a number.
    case invalidPattern = "invalid-pattern"
    /// A range whose ends are not two numbers of equal length, first <= last.
    case invalidRange = "invalid-range"
    // A short number some region dials for its emergency services (`EmergencyNumbers`).
    /// An emergency number (libphonenumber's short-number metadata): never blocked or labelled.
    case emergencyNumber = "emergency-number"
    // Identification rows whose label CallKit would refuse.
    /// An identification row without a label.
    case missingLabel = "missing-label"
    /// An empty label.
    case emptyLabel = "empty-label"
    /// A label over `IndexFormat.maxLabelBytes` UTF-8 bytes.
    case labelTooLong = "label-too-long"
    /// A label with a control character.
    case labelControlCharacter = "label-control-character"
    /// A label that is not valid UTF-8.
    case labelInvalidUTF8 = "label-invalid-utf8"
    // Rows left out on purpose: `--dedupe` and `--allow`.
    /// Repeats the entry before it (`--dedupe`).
    case duplicate = "duplicate"
    /// Repeats the entry before it with another label; the first wins (`--dedupe`).
    case labelConflict = "label-conflict"
    /// On the allowlist (`--allow`).
    case allowed = "allowed"
    // Numbers left out by `compile --valid-only` and `--types` (libphonenumber's
    // is_valid_number and number type).
    /// Not a valid number by libphonenumber's rules (`--valid-only`).
    case invalidNumber = "not-valid"
    /// A number type `--types` leaves out.
    case excludedType = "excluded-type"
    // Lookups only: a pattern or range where one number was expected, and a caller ID that
    // was withheld (`anonymous`, `private`, `restricted`...; see `CallerID`).
    /// A range or pattern where one number was expected (lookups).
    case notASingleNumber = "range"
    /// The caller withheld the number: anonymous, private, restricted or unavailable (lookups).
    case withheld = "anonymous"

    /// The reasons `NumberNormalizer.normalize` can give.
    public static let normalizerReasons: [RejectReason] = [
        .empty, .invalidCharacter, .tooShort, .tooLong, .missingCountryCode, .unknownCountryCode,
        .invalidLeadingDigit, .invalidAreaCode,
        .invalidPattern, .invalidRange, .emergencyNumber,
    ]

    /// A sentence for diagnostics and answers.
    public var explanation: String {
        switch self {
        case .empty: return "no digits"
        case .invalidCharacter: return "contains a character that is not a digit or phone punctuation"
        case .tooShort: return "shorter than its country's numbers or E.164's 7 digits"
        case .tooLong: return "longer than its country's numbers or E.164's 15 digits"
        case .missingCountryCode: return "a national number, without its country code: pass --country"
        case .unknownCountryCode: return "no country uses its calling code"
        case .invalidLeadingDigit: return "no number of its country starts with that digit"
        case .invalidAreaCode:
            return "not a possible North American number (area code or exchange starts with 0 or 1; --lenient accepts it)"
        case .invalidPattern: return "'#' wildcards must be trailing digits of a number"
        case .invalidRange: return "a range needs two numbers of equal length, first <= last"
        case .emergencyNumber: return "an emergency number (libphonenumber's short-number metadata): never blocked or labelled"
        case .missingLabel:
            return "identification entries need a label (a second column); numbers without labels are a blocking list: give it with --block"
        case .emptyLabel: return "identification entries need a non-empty label"
        case .labelTooLong: return "labels are at most \(Self.maxLabelBytes) UTF-8 bytes"
        case .labelControlCharacter: return "labels must not contain control characters (bidirectional controls such as U+202E included)"
        case .labelInvalidUTF8: return "labels must be valid UTF-8"
        case .duplicate: return "repeats the entry before it (--dedupe)"
        case .labelConflict: return "repeats the entry before it with another label; the first label wins (--dedupe)"
        case .allowed: return "on the allowlist (--allow)"
        case .invalidNumber: return "not a valid number of its country (libphonenumber's is_valid_number; --valid-only)"
        case .excludedType: return "not of a number type --types keeps"
        case .notASingleNumber: return "lookups take single numbers, not patterns or ranges"
        case .withheld: return "the caller withheld the number (anonymous, private, restricted or unavailable)"
        }
    }

    /// The longest label, in UTF-8 bytes, that `labelTooLong` names: the index format's limit,
    /// `IndexFormat.maxLabelBytes`, which is this value. It is spelled here because the reasons
    /// sit beneath the format, in the numbers, and say it.
    package static let maxLabelBytes = 255

    public var description: String { rawValue }

    public static func < (a: RejectReason, b: RejectReason) -> Bool { a.rawValue < b.rawValue }
}
