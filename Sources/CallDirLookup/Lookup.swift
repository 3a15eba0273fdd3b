import CallDirNumbers
import CallDirReader

/// Answers numbers one by one, writing to a buffered stdout.
package final class Lookup {
    /// What answers: an index (`--index`), or the shards of a manifest (`--shards`), whose
    /// answers are the list's (`ShardSet.lookup`); one of the two is set.
    package let index: CallDirIndex?
    package let shards: ShardSet?
    package let normalizer: NumberNormalizer
    package let policy: CallerIDPolicy
    package let json: Bool
    package var out = StdoutBuffer()
    /// Some answer was "allow": exit 1.
    package var unlisted = false
    /// The index was damaged: exit 2.
    package var failed = false

    package init(index: CallDirIndex, normalizer: NumberNormalizer, policy: CallerIDPolicy, json: Bool) {
        self.index = index
        shards = nil
        self.normalizer = normalizer
        self.policy = policy
        self.json = json
    }

    /// Answers from the shards a manifest names (`lookup --shards`), number by number.
    package init(shards: ShardSet, normalizer: NumberNormalizer, policy: CallerIDPolicy, json: Bool) {
        index = nil
        self.shards = shards
        self.normalizer = normalizer
        self.policy = policy
        self.json = json
    }

    /// The user's layer (`lookup --personal/--contacts`): applied to every number's answer,
    /// on this one path (one-shot, `lookup -`); nil, the list's answers.
    package var overlay: PersonalOverlay?

    /// Inputs answered as not a number, for `LookupHints` (one-shot lookups only).
    package var rejected: [(input: String, reason: RejectReason)] = []

    package func answer(_ input: String) {
        switch normalizer.classify(input) {
        case .number(let number): answer(number: number, input: input)
        case .notANumber(let reason):
            rejected.append((input, reason))
            notANumber(input, reason: reason)
        }
    }

    /// Answers a number; `input` is the text it was given as (its E.164 form when nil).
    package func answer(number: Int64, input: String? = nil) {
        do {
            var result = try index?.lookup(number) ?? shards!.lookup(number)
            if let overlay {
                let rules: [PersonalOverlay.Rule]
                (result, rules) = overlay.answer(result)
                return writeWithLayer(result, rules: rules, input: input)
            }
            if let input {
                var input = input
                input.withUTF8 { input in result.withView { write($0, input: UnsafeRawBufferPointer(input)) } }
            } else {
                write(result)
            }
        } catch {
            failed = true
            writeError(error, number: number, input: input)
            out.flush()
            _ = Terminal.failStatus(error)
        }
    }

    /// The answer line of a number whose answer cannot be read (damage): it takes the answer's
    /// place, so `lookup -` keeps one line per input. Text: `+18005555555  error (REASON)`;
    /// JSON: `{"input":...,"error":REASON}`. The reason is the error without its path.
    package func writeError(_ error: Error, number: Int64, input: String?) {
        let reason = (error as? CallDirError)?.message ?? "\(error)"
        if json {
            let input = input ?? "+\(number)"
            out.writeJSONLine(maxBytes: 32 + JSONWriter.stringBound(input) + JSONWriter.stringBound(reason)) { w in
                w.text("{\"input\":")
                w.string(input)
                w.text(",\"error\":")
                w.string(reason)
                w.byte(UInt8(ascii: "}"))
            }
        } else {
            let line = "+\(max(0, number))  error (\(reason))".utf8.map { $0 < 0x20 ? 0x20 : $0 } + [0x0A]
            line.withUnsafeBytes { out.write($0) }
        }
    }

    /// An answer the user's layer gave: the list's line, with the rules that changed it
    /// (`+33612345678  blocked (your block)`; JSON: `"personal":["your block"]`).
    private func writeWithLayer(_ result: LookupResult, rules: [PersonalOverlay.Rule], input: String?) {
        if !result.isListed { unlisted = true }
        let names = rules.map(\.rawValue)
        let given = input.map(AnswerInput.text) ?? .e164
        result.withView { view in
            if json {
                out.writeJSONLine(maxBytes: JSONWriter.answerBound(view, input: given, personal: names, index: nil)) { w in
                    w.answer(view, input: given, personal: names)
                }
            } else {
                out.writeLine(view, notes: names)
            }
        }
    }

    package func write(_ result: LookupResult) {
        result.withView { write($0) }
    }

    package func write(_ result: LookupResultView, input: UnsafeRawBufferPointer? = nil) {
        if !result.isListed { unlisted = true }
        write(result, input: input, to: &out)
    }

    /// The answer line of `result`, into `buffer` (a batch writes into a local buffer: every
    /// write to the class's `out` is checked at run time for exclusive access, 2% of a batch).
    /// `input` is the text the number was given as (valid UTF-8: the normaliser took it), for
    /// JSON's `input`; nil writes the number's E.164 form there.
    package func write(_ result: LookupResultView, input: UnsafeRawBufferPointer? = nil, to buffer: inout StdoutBuffer) {
        if json {
            let given = input.map(AnswerInput.utf8) ?? .e164
            buffer.writeJSONLine(maxBytes: JSONWriter.answerBound(result, input: given)) { w in
                w.answer(result, input: given)
            }
        } else {
            buffer.writeLine(result)
        }
    }

    /// One answer line for an input that is not a number: the policy's verdict and why.
    package func notANumber(_ input: String, reason: RejectReason) {
        let action = policy.action(for: reason)
        if action == .allow { unlisted = true }
        if json {
            let message = normalizer.explain(input, reason)  // the rule for this input
            out.writeJSONLine(maxBytes: JSONWriter.notANumberAnswerBound(input: input, message: message)) { w in
                w.notANumberAnswer(input: input, reason, message: message, action: action)
            }
        } else {
            out.writeLine(input: input, reason: reason, action: action)
        }
    }
}
