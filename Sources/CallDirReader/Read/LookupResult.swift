/// What the index says about one number. "Not listed" is a normal result, not an error.
public struct LookupResult: Equatable, Sendable {
    public enum Match: String, Sendable {
        case exact
        case range
    }

    /// The E.164 number looked up (CallKit's Int64).
    public var number: Int64
    /// How the number is blocked, or nil when it is not.
    public var blocked: Match?
    /// The blocking range that matched (when `blocked == .range`).
    public var blockedRange: NumberRange?
    /// The identification label, or nil.
    public var label: String?
    /// How the label was found: an exact entry wins over a range.
    public var labelMatch: Match?
    /// The identification range that matched (when `labelMatch == .range`).
    public var labelRange: NumberRange?

    public init(number: Int64) { self.number = number }

    public var isListed: Bool { blocked != nil || label != nil }

    /// What a telephony server should do: block, identify (ring with a label) or allow.
    public var action: LookupAction {
        if blocked != nil { return .block }
        return label != nil ? .identify : .allow
    }
}

/// A lookup's verdict; the raw values are the words JSON and text answers use.
public enum LookupAction: String, Sendable, CaseIterable {
    case block
    case identify
    case allow
}
