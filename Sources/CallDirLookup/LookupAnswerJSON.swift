import CallDirNumbers
import CallDirReader

/// What a number's answer says it was given as: its `input` member.
package enum AnswerInput {
    /// The text given (a one-shot argument, a daemon request).
    case text(String)
    /// The text given, as bytes (a `lookup -` line): valid UTF-8, as the normaliser took it.
    case utf8(UnsafeRawBufferPointer)
    /// A number given as a number: its E.164 form, `+` and digits.
    case e164

    /// The most bytes it writes.
    var bound: Int {
        switch self {
        case .text(let text): return JSONWriter.stringBound(text)
        case .utf8(let bytes): return 2 + 6 * bytes.count
        case .e164: return 24
        }
    }
}

/// The lookup answers, written through the one `JSONWriter` (the reader's JSON core). Every
/// front writes its answers with `answer` and `notANumberAnswer`: `calldir lookup --json`,
/// `lookup -`, `--personal`, and the daemon's single answers and batch results, so their bytes
/// agree by construction.
extension JSONWriter {
    /// The most bytes `answer` can write without the extras: a batch's answers. Apart, and
    /// small enough for the optimiser to inline into the daemon (a batch computes one per
    /// number: the general bound cost 1% of a batch's instructions, callgrind).
    package static func answerBound(_ result: LookupResultView, input: AnswerInput) -> Int {
        32 + input.bound + lookupBound(result)
    }

    /// The most bytes `answer` can write.
    package static func answerBound(_ result: LookupResultView, input: AnswerInput, personal: [String]?, index: [UInt8]?) -> Int {
        var bound = answerBound(result, input: input) + (index?.count ?? 0)
        for name in personal ?? [] { bound += stringBound(name) + 1 }
        return bound
    }

    /// The most bytes `notANumberAnswer` can write.
    package static func notANumberAnswerBound(input: String, message: String, index: [UInt8]? = nil) -> Int {
        32 + stringBound(input) + notANumberBound(message: message) + (index?.count ?? 0)
    }

    /// A number's answer: `{"input":...,` then `lookupMembers`, then `"personal":[...]` when
    /// the user's layer changed it (the rules that did, CLI) and `"index":{...}` when the
    /// caller names the index that answered (the daemon's single answers), then `}`.
    package mutating func answer(_ result: LookupResultView, input: AnswerInput, personal: [String]? = nil, index: [UInt8]? = nil) {
        text("{\"input\":")
        switch input {
        case .text(let text): string(text)
        case .utf8(let bytes): string(utf8: bytes)
        case .e164:
            text("\"+")
            decimal(result.number)
            byte(UInt8(ascii: "\""))
        }
        byte(UInt8(ascii: ","))
        lookupMembers(result)
        if let personal, !personal.isEmpty {
            text(",\"personal\":[")
            for (i, name) in personal.enumerated() {
                if i > 0 { byte(UInt8(ascii: ",")) }
                string(name)
            }
            byte(UInt8(ascii: "]"))
        }
        closeAnswer(index: index)
    }

    /// The answer for a caller ID that is not a number: `{"input":...,` then
    /// `notANumberMembers`, then `"index":{...}` as in `answer`, then `}`.
    package mutating func notANumberAnswer(input: String, _ reason: RejectReason, message: String, action: CallerIDAction,
                                           index: [UInt8]? = nil) {
        text("{\"input\":")
        string(input)
        byte(UInt8(ascii: ","))
        notANumberMembers(reason, message: message, action: action)
        closeAnswer(index: index)
    }

    private mutating func closeAnswer(index: [UInt8]?) {
        if let index {
            text(",\"index\":")
            index.withUnsafeBytes { bytes($0) }
        }
        byte(UInt8(ascii: "}"))
    }

    /// The most bytes `lookupMembers` can write.
    package static func lookupBound(_ view: LookupResultView) -> Int { 418 + 6 * (view.label?.count ?? 0) }
    /// The most bytes `notANumberMembers` can write.
    package static func notANumberBound(message: String) -> Int { 128 + stringBound(message) }

    /// The members of a lookup answer, without the enclosing braces: `valid` (true), `number`,
    /// `e164`, `action`, `blocked`, `blockedMatch`, `blockedRange`, `label`, `labelMatch`,
    /// `labelRange`. `answer` puts `input` before them, so a valid number's answer and
    /// `notANumberMembers`' share `input`, `valid`, `action`, `blocked` and `label`: one shape.
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
    /// `"valid":false,"reason":...,"message":...,"action":...,"blocked":...,"label":null`;
    /// `message` is the rule for this input (`NumberNormalizer.explain`).
    package mutating func notANumberMembers(_ reason: RejectReason, message: String, action: CallerIDAction) {
        text("\"valid\":false,\"reason\":")
        string(reason.rawValue)
        text(",\"message\":")
        string(message)
        text(action == .block ? ",\"action\":\"block\",\"blocked\":true" : ",\"action\":\"allow\",\"blocked\":false")
        text(",\"label\":null")
    }
}
