import ArgumentParser
import CallDirReader

/// A `--country` value: a calling code some country uses (`1`, `33`, `41`) or an ISO 3166
/// region (`US`, `FR`, `CH`, any case), which stands for its calling code.
package struct CountryOption: ExpressibleByArgument, Sendable, Equatable {
    package let code: Int

    package init(code: Int) { self.code = code }

    package init?(argument: String) {
        guard let code = CountryTable.callingCode(parsing: argument) else { return nil }
        self.code = code
    }

    /// The help text every command shows for `--country`.
    package static let help = "A calling code (1, 33, 41) or region (US, FR, CH) for numbers written without one. Without it, numbers must carry their country code."
}
