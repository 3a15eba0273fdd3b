import CallDirNumbers
import CallDirReader

/// What a lookup makes of one caller ID. Every input gets an answer: a PBX asks about every
/// incoming call, and a withheld or malformed caller ID is an ordinary event, not an error.
package enum CallerID: Equatable, Sendable {
    /// A possible E.164 number, to look up in the index.
    case number(Int64)
    /// Not a number that can be looked up, and why: `.withheld` (`anonymous`, `private`...),
    /// `.empty`, `.notASingleNumber` (a pattern or range), or a normaliser reason.
    case notANumber(RejectReason)
}

/// What a policy says to do with a caller ID that is not a number.
package enum CallerIDAction: String, Sendable, CaseIterable {
    case allow
    case block

    /// The lookup verdict this policy action gives.
    package var verdict: LookupAction { self == .block ? .block : .allow }
}

/// What callers without a usable number get (`--anonymous`, `--invalid` on `lookup` and
/// `serve`). Both default to `allow`: a lookup must never make calls fail closed, and
/// "block anonymous callers" is a choice the operator makes.
package struct CallerIDPolicy: Sendable, Equatable {
    /// Withheld or empty caller IDs.
    package var withheld: CallerIDAction
    /// Everything else that is not a possible number (`1234567`, `abc`), except an
    /// emergency number (`911`, `112`), which is always allowed.
    package var invalid: CallerIDAction

    package init(withheld: CallerIDAction = .allow, invalid: CallerIDAction = .allow) {
        self.withheld = withheld
        self.invalid = invalid
    }

    /// An emergency number is always allowed, whatever `invalid` says (`EmergencyNumbers`).
    package func action(for reason: RejectReason) -> CallerIDAction {
        reason == .emergencyNumber ? .allow : reason.isWithheld ? withheld : invalid
    }
}

extension RejectReason {
    /// A caller ID that was withheld or left empty: the policy's `withheld` case.
    package var isWithheld: Bool { self == .withheld || self == .empty }

    /// Whether text refused for this reason can still be what a caller sent: digits with the
    /// separators people write, a `+`, a withheld word, or something else a network might send
    /// (`911`, `abc`), which the policy's `invalid` case decides. Not a range or pattern (a
    /// list's syntax: `1..4692576503` read as a range must not make a blocked caller ring
    /// through `--invalid allow`), nor text without a digit (empty, only separators, the dot
    /// segments `.` and `..`), which says the client lost the caller ID on its way.
    package var canBeCallerID: Bool {
        switch self {
        case .notASingleNumber, .invalidPattern, .invalidRange, .empty: return false
        default: return true
        }
    }
}

extension NumberNormalizer {
    /// Classifies a caller ID given as UTF-8 bytes (untrimmed). The words SIP and PSTN
    /// gateways put in place of a withheld number (`anonymous` as RFC 3323 asks, `private`,
    /// `restricted`, `withheld`, `unavailable`, `unknown`; any case) are `.withheld`.
    package func classify(_ field: UnsafeRawBufferPointer) -> CallerID {
        switch normalize(field) {
        case .success(.number(let number)): return .number(number)
        case .success(.range): return .notANumber(.notASingleNumber)
        case .failure(let reason):
            // `911`, `112`, `10111` are `emergency-number`: never blocked (`EmergencyNumbers`).
            guard reason == .invalidCharacter else { return .notANumber(reason) }
            if isWithheldWord(field) { return .notANumber(.withheld) }
            // Quotes copied from a spreadsheet ("+14692576503"): the number inside, as a
            // compile's CSV reader takes it. Only on this failure path: no cost to others.
            if let inner = quoted(field) { return classify(inner) }
            return .notANumber(reason)
        }
    }

    package func classify(_ field: String) -> CallerID {
        var field = field
        return field.withUTF8 { classify(UnsafeRawBufferPointer($0)) }
    }
}

private let withheldWords: [[UInt8]] = ["anonymous", "private", "restricted", "withheld", "unavailable", "unknown"]
    .map { Array($0.utf8) }

/// The text inside one pair of double quotes around `field` (whitespace around them ignored).
private func quoted(_ field: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
    var start = 0, end = field.count
    while start < end, field[start] == 0x20 || field[start] == 0x09 { start += 1 }
    while end > start, field[end - 1] == 0x20 || field[end - 1] == 0x09 || field[end - 1] == 0x0D || field[end - 1] == 0x0A { end -= 1 }
    guard end - start >= 3, field[start] == 0x22, field[end - 1] == 0x22 else { return nil }
    return UnsafeRawBufferPointer(rebasing: field[(start + 1)..<(end - 1)])
}

/// One of `withheldWords`, ASCII case-insensitively, with surrounding whitespace ignored.
private func isWithheldWord(_ field: UnsafeRawBufferPointer) -> Bool {
    var word = field[...]
    while let first = word.first, first == 0x20 || first == 0x09 || first == 0x0D || first == 0x0A { word = word.dropFirst() }
    while let last = word.last, last == 0x20 || last == 0x09 || last == 0x0D || last == 0x0A { word = word.dropLast() }
    guard word.count <= 11 else { return false }
    return withheldWords.contains { candidate in
        candidate.count == word.count && zip(candidate, word).allSatisfy { $0 == $1 | 0x20 }
    }
}
