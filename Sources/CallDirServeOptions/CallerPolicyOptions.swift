import ArgumentParser

/// What `calldir lookup` and `calldir serve` answer for caller IDs that are not numbers, and
/// whether numbers starting with 1 must be possible NANP numbers. One declaration, so both
/// commands document and check these the same way.
public struct CallerPolicyOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The action for a withheld or empty caller ID (anonymous, private, restricted, withheld, unavailable, unknown, or nothing): allow or block.", valueName: "action"))
    public var anonymous = "allow"

    @Option(help: ArgumentHelp("The action for a caller ID that is not a possible number (911, 12010000000, abc): allow or block. Allow by default, so that a call never fails closed.", valueName: "action"))
    public var invalid = "allow"

    @Flag(name: .customLong("no-nanp-check"), help: "Accept numbers starting with 1 that are not possible North American numbers (area code or exchange starting with 0 or 1), as CallKit does, so spoofed caller IDs can be listed and matched.")
    public var noNANPCheck = false

    public init() {}

    public static let actions = ["allow", "block"]

    public func validate() throws {
        for (name, value) in [("--anonymous", anonymous), ("--invalid", invalid)] where !Self.actions.contains(value) {
            throw ValidationError("\(name) must be allow or block (got '\(value)').")
        }
    }

    /// Checks a `--country` value the way the normaliser needs it, as a usage error (exit 64).
    public static func validate(country: Int?) throws {
        if let country, !(1...999).contains(country) {
            throw ValidationError("--country needs a calling code from 1 to 999 such as 1, 33 or 41 (got \(country)).")
        }
    }
}
