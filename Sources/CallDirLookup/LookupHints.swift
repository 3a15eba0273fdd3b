import CallDirNumbers
import CallDirReader

/// What a one-shot `calldir lookup` says on stderr about arguments that are not numbers: the
/// rule each breaks and how to ask instead. Stdout keeps exactly one answer per argument
/// (scripts read it); `--json` carries the same text in each answer's `message`.
enum LookupHints {
    static func print(_ rejected: [(input: String, reason: RejectReason)], arguments: [String], normalizer: NumberNormalizer) {
        let problems = rejected.filter { !$0.reason.isWithheld }
        guard !problems.isEmpty else { return }
        // `calldir lookup +44 20 7946 0959`: the shell split one number into four arguments.
        if arguments.count > 1 {
            let joined = arguments.joined(separator: " ")
            if case .number(let number) = normalizer.classify(joined) {
                Terminal.printError("hint: the \(arguments.count) arguments are one number, +\(number), when read together: "
                                    + "quote it: calldir lookup '\(joined)'")
                return
            }
        }
        for (input, reason) in problems {
            Terminal.printError("hint: '\(input)': \(normalizer.explain(input, reason))")
        }
    }
}
