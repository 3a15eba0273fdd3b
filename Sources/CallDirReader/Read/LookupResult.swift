/// What the index says about one number. "Not listed" is a normal result, not an error.
public struct LookupResult: Equatable, Sendable {
    /// How a number matched: an entry of its own, or a range that contains it.
    public enum Match: String, Sendable {
        /// An entry for the number itself.
        case exact
        /// A range containing the number.
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

    /// An answer for `number` that lists nothing.
    public init(number: Int64) { self.number = number }

    /// True when the number is blocked or labelled.
    public var isListed: Bool { blocked != nil || label != nil }

    /// What a telephony server should do: block, identify (ring with a label) or allow.
    public var action: LookupAction { LookupAction(blocked: blocked != nil, identified: label != nil) }

    /// Calls `body` with this answer as a view (its label's UTF-8 bytes): the writers of
    /// answers take views, so single and batch answers are formatted by the same code.
    package func withView<R>(_ body: (LookupResultView) throws -> R) rethrows -> R {
        var view = LookupResultView(number: number)
        view.blocked = blocked
        view.blockedRange = blockedRange
        view.labelMatch = labelMatch
        view.labelRange = labelRange
        guard var text = label else { return try body(view) }
        return try text.withUTF8 { utf8 in
            view.label = UnsafeRawBufferPointer(utf8)
            return try body(view)
        }
    }
}

/// A `LookupResult` whose label is borrowed: the decoded bytes (valid UTF-8) of the label,
/// valid only inside the callback that receives the view. Batch lookups hand out views so
/// that answers written as bytes cost no `String` per label.
package struct LookupResultView {
    /// The E.164 number looked up.
    package var number: Int64
    /// How the number is blocked, or nil when it is not.
    package var blocked: LookupResult.Match?
    /// The blocking range that matched.
    package var blockedRange: NumberRange?
    /// The label's UTF-8 bytes, or nil.
    package var label: UnsafeRawBufferPointer?
    /// How the label was found.
    package var labelMatch: LookupResult.Match?
    /// The identification range that matched.
    package var labelRange: NumberRange?

    /// An answer for `number` that lists nothing.
    package init(number: Int64) { self.number = number }

    /// True when the number is blocked or labelled.
    package var isListed: Bool { blocked != nil || label != nil }
    /// What a telephony server should do.
    package var action: LookupAction { LookupAction(blocked: blocked != nil, identified: label != nil) }

    /// The answer with its label copied into a `String`.
    package var result: LookupResult {
        var result = LookupResult(number: number)
        result.blocked = blocked
        result.blockedRange = blockedRange
        result.label = label.map { String(decoding: $0, as: UTF8.self) }
        result.labelMatch = labelMatch
        result.labelRange = labelRange
        return result
    }
}

/// A lookup's verdict; the raw values are the words JSON and text answers use.
public enum LookupAction: String, Sendable, CaseIterable {
    /// Refuse the call.
    case block
    /// Ring, showing the label.
    case identify
    /// Ring.
    case allow

    /// Blocking wins over identification.
    init(blocked: Bool, identified: Bool) {
        self = blocked ? .block : identified ? .identify : .allow
    }
}
