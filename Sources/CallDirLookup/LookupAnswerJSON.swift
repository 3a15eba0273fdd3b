import CallDirReader

/// The members of the lookup answers, written through the one `JSONWriter` (the reader's JSON
/// core): `calldir lookup --json` and the daemon share these, so their bytes agree by construction.
extension JSONWriter {
    /// The most bytes `lookupMembers` can write.
    package static func lookupBound(_ result: LookupResult) -> Int { 416 + stringBound(result.label ?? "") }
    /// The most bytes `lookupMembers` can write for a view.
    package static func lookupBound(_ view: LookupResultView) -> Int { 418 + 6 * (view.label?.count ?? 0) }
    /// The most bytes `notANumberMembers` can write.
    package static func notANumberBound(_ reason: RejectReason) -> Int { 128 + stringBound(reason.explanation) }
    /// The most bytes `notANumberMembers(_:message:action:)` can write.
    package static func notANumberBound(message: String) -> Int { 128 + stringBound(message) }

    /// The members of a lookup answer, without the enclosing braces: `valid` (true), `number`,
    /// `e164`, `action`, `blocked`, `blockedMatch`, `blockedRange`, `label`, `labelMatch`,
    /// `labelRange`. Every answer (`calldir lookup --json`, the daemon) puts `input` before
    /// them, so a valid number's answer and `notANumberMembers`' share `input`, `valid`,
    /// `action`, `blocked` and `label`: one shape.
    package mutating func lookupMembers(_ result: LookupResult) {
        result.withView { lookupMembers($0) }
    }

    /// `lookupMembers` for a batch lookup's view.
    package mutating func lookupMembers(_ result: LookupResultView) {
        text("\"valid\":true,\"number\":\"+")
        decimal(result.number)
        text("\",\"e164\":")
        decimal(result.number)
        if result.blocked != nil {
            text(",\"action\":\"block\"")
        } else if result.label != nil {
            text(",\"action\":\"identify\"")
        } else {
            text(",\"action\":\"allow\"")
        }
        switch result.blocked {
        case .exact?: text(",\"blocked\":true,\"blockedMatch\":\"exact\"")
        case .range?: text(",\"blocked\":true,\"blockedMatch\":\"range\"")
        case nil: text(",\"blocked\":false")
        }
        if let blockedRange = result.blockedRange {
            text(",\"blockedRange\":")
            range(blockedRange)
        }
        text(",\"label\":")
        if let label = result.label { string(utf8: label) } else { text("null") }
        switch result.labelMatch {
        case .exact?: text(",\"labelMatch\":\"exact\"")
        case .range?: text(",\"labelMatch\":\"range\"")
        case nil: break
        }
        if let labelRange = result.labelRange {
            text(",\"labelRange\":")
            range(labelRange)
        }
    }

    /// The members of the answer for a caller ID that is not a number, without the braces:
    /// `"valid":false,"reason":...,"message":...,"action":...,"blocked":...,"label":null`.
    package mutating func notANumberMembers(_ reason: RejectReason, action: CallerIDAction) {
        notANumberMembers(reason, message: reason.explanation, action: action)
    }

    /// `notANumberMembers` with the message for this input (`NumberNormalizer.explain`).
    package mutating func notANumberMembers(_ reason: RejectReason, message: String, action: CallerIDAction) {
        text("\"valid\":false,\"reason\":")
        string(reason.rawValue)
        text(",\"message\":")
        string(message)
        text(action == .block ? ",\"action\":\"block\",\"blocked\":true" : ",\"action\":\"allow\",\"blocked\":false")
        text(",\"label\":null")
    }
}
