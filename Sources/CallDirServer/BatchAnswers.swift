import CallDirLookup
import CallDirNumbers
import CallDirReader
import NIOCore

/// The body of a batch reply, `{"index":...,"count":N,"results":[...]}`, its results written
/// in input order: the batch lookup's answers for the numbers, the policy's for the inputs
/// that are not numbers, between them. One value the lookup's closure mutates: locals
/// captured by the closure and by a nested function were checked for exclusive access at run
/// time at every answer (7% of a batch).
struct BatchAnswers {
    let inputs: [String]
    let classes: [CallerID]
    let policy: CallerIDPolicy
    /// For the message of an input that is not a number (`explain`: only those pay for it).
    let normalizer: NumberNormalizer
    private(set) var out: ByteBuffer
    private(set) var tally = (block: 0, identify: 0, allow: 0, invalid: 0)
    /// The next input to answer.
    private var next = 0

    /// Starts the reply in a buffer of its own: the index's identity (its JSON) and the input
    /// count. The buffer is made here, not passed in: the first write to a buffer the caller
    /// still held copied it (copy-on-write) into fresh memory, page faults and all, at every
    /// request: 40% of a batch's speed (daa9ba0).
    init(inputs: [String], classes: [CallerID], policy: CallerIDPolicy, normalizer: NumberNormalizer, identity: [UInt8],
         allocator: ByteBufferAllocator) {
        self.inputs = inputs
        self.classes = classes
        self.policy = policy
        self.normalizer = normalizer
        out = allocator.buffer(capacity: 64 + identity.count + inputs.count * 200)
        self.out.writeStaticString("{\"index\":")
        self.out.writeBytes(identity)
        self.out.writeStaticString(",\"count\":")
        self.out.writeDecimal(Int64(inputs.count))
        self.out.writeStaticString(",\"results\":[")
    }

    /// Answers the inputs after the last number and ends the reply.
    mutating func finish() {
        answerNotNumbers()
        out.writeStaticString("]}")
    }

    /// Answers the inputs before the next number: they are not numbers.
    private mutating func answerNotNumbers() {
        while next < inputs.count, case .notANumber(let reason) = classes[next] {
            tally.invalid += 1
            let input = inputs[next], first = next == 0, action = policy.action(for: reason)
            let message = normalizer.explain(input, reason)
            out.writeRaw(maxBytes: 1 + JSONWriter.notANumberAnswerBound(input: input, message: message)) { w in
                if !first { w.byte(UInt8(ascii: ",")) }
                w.notANumberAnswer(input: input, reason, message: message, action: action)
            }
            next += 1
        }
    }

    /// The answer for the next number, after the inputs before it.
    mutating func answer(_ result: LookupResultView) {
        answerNotNumbers()
        switch result.action {
        case .block: tally.block += 1
        case .identify: tally.identify += 1
        case .allow: tally.allow += 1
        }
        let input = AnswerInput.text(inputs[next]), first = next == 0
        out.writeRaw(maxBytes: 1 + JSONWriter.answerBound(result, input: input)) { w in
            if !first { w.byte(UInt8(ascii: ",")) }
            w.answer(result, input: input)
        }
        next += 1
    }
}
