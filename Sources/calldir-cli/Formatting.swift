import ArgumentParser
import CallDirLookup
import CallDirReader

extension Terminal {
    /// Prints `error` and exits with 2 (or 1 for the given negative-answer codes).
    static func fail(_ error: Error, negative: Set<CallDirError.Code> = []) -> ExitCode {
        ExitCode(failStatus(error, negative: negative))
    }

    /// `fail`'s status without its message, where stderr carries JSON lines only
    /// (`--error-format json`) and one of them already says it.
    static func failQuietly(_ error: Error, negative: Set<CallDirError.Code> = []) -> ExitCode {
        guard let e = error as? CallDirError else { return ExitCode(ExitStatus.error) }
        return ExitCode(negative.contains(e.code) ? ExitStatus.negativeAnswer : .error)
    }
}

extension ExitCode {
    /// The status of the one table (`ExitStatus`, docs/CLI.md "Exit status").
    init(_ status: ExitStatus) { self.init(status.rawValue) }
}

/// "64M", "1G", "512K" or plain bytes.
func parseSize(_ text: String) -> Int? {
    let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
    var digits = text.uppercased()
    if digits.hasSuffix("IB") { digits.removeLast(2) } else if digits.hasSuffix("B") { digits.removeLast() }
    var factor = 1
    if let last = digits.last, let unit = units[last] { factor = unit; digits.removeLast() }
    guard let value = Int(digits), value > 0 else { return nil }
    return value.multipliedReportingOverflow(by: factor).overflow ? nil : value * factor
}
