import ArgumentParser

/// What `calldir lookup` and `calldir serve` answer for caller IDs that are not numbers, and
/// whether numbers starting with 1 must be possible NANP numbers. One declaration, so both
/// commands document and check these the same way.
package struct CallerPolicyOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The action for a withheld or empty caller ID (anonymous, private, restricted, withheld, unavailable, unknown, or nothing): allow or block.", valueName: "action"))
    package var anonymous = "allow"

    @Option(help: ArgumentHelp("The action for a caller ID that is not a possible number (1234567, abc): allow or block. Allow by default, so that a call never fails closed. An emergency number (911, 112) is always allowed.", valueName: "action"))
    package var invalid = "allow"

    @Flag(help: "Accept every number CallKit accepts (7 to 15 digits, not starting with 0) without checking its country's rules (calling code, length, first digit, North American area code), so spoofed caller IDs can be listed and matched.")
    package var lenient = false

    /// The former name of `--lenient`, kept for scripts.
    @Flag(name: .customLong("no-nanp-check"), help: .hidden)
    package var noNANPCheck = false

    /// `--lenient` or its former name.
    package var isLenient: Bool { lenient || noNANPCheck }

    package init() {}

    package static let actions = ["allow", "block"]

    package func validate() throws {
        for (name, value) in [("--anonymous", anonymous), ("--invalid", invalid)] where !Self.actions.contains(value) {
            throw ValidationError("\(name) must be allow or block (got '\(value)').")
        }
    }

}
