import ArgumentParser
import CallDirNumbers

/// A `--country` value: a calling code some country uses (`1`, `33`, `41`), read with its main
/// region's rules, or an ISO 3166 region (`US`, `CX`, `JE`, any case), read with its own
/// (`NumberNormalizer(region:)`: `--country CX 90667967` is +61 8 9066 7967).
package struct CountryOption: ExpressibleByArgument, Sendable, Equatable {
    package let code: Int
    /// The region when given as one (uppercased), nil for a calling code.
    package let region: String?

    package init(code: Int) {
        self.code = code
        region = nil
    }

    package init?(argument: String) {
        guard let code = CountryTable.callingCode(parsing: argument) else { return nil }
        self.code = code
        region = Int(argument.hasPrefix("+") ? String(argument.dropFirst()) : argument) == nil ? argument.uppercased() : nil
    }

    /// The help text every command shows for `--country`.
    package static let help = "A calling code (1, 33, 41) or region (US, FR, CH) for numbers written without one: a region reads its own rules (CX: 90667967 is +61 8 9066 7967), a calling code its main region's (61: AU). Without it, numbers must carry their country code."
}
