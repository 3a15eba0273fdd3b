/// How national numbers are written in one country: which trunk prefix (if any) a caller
/// dials before a national number, e.g. `0` in `021 560 12 34` for Switzerland.
///
/// The normaliser needs this to turn a national number into E.164 when the user declares a
/// default country with `--country`:
/// - with a trunk prefix, the prefix is removed and the calling code put in its place;
/// - without one (Italy, Spain, Denmark...), leading zeros are part of the number and the
///   calling code is simply prepended (`06 1234 5678` in Italy is `+39 06 1234 5678`).
///
/// North America (calling code 1) is handled by its own rule in `NumberNormalizer`.
enum NationalFormat: Sendable, Equatable {
    /// Numbers dialled nationally start with a trunk prefix: `value` written with `length`
    /// digits (`0` is (0, 1), Hungary's `06` is (6, 2)).
    case trunkPrefix(value: UInt64, length: Int)
    /// No trunk prefix: the national number is the E.164 number minus the calling code.
    case noTrunkPrefix
}

enum TrunkPrefixes {
    /// The national format of a country, by calling code. Codes not listed use trunk prefix
    /// `0`, which most of the world's numbering plans do.
    static func format(forCountry code: Int) -> NationalFormat {
        if withoutTrunkPrefix.contains(code) { return .noTrunkPrefix }
        switch code {
        case 7, 370, 375:
            // Russia and Kazakhstan, Lithuania, Belarus: `8 495 123-45-67`.
            return .trunkPrefix(value: 8, length: 1)
        case 36:
            // Hungary: `06 1 234 5678`.
            return .trunkPrefix(value: 6, length: 2)
        default:
            // Switzerland, France, Germany, the UK, Austria, the Netherlands, Belgium,
            // Australia, Japan, China and most other countries: `0`.
            return .trunkPrefix(value: 0, length: 1)
        }
    }

    /// Calling codes whose national numbers are written without a trunk prefix (a leading
    /// zero, where there is one, belongs to the number and is kept in E.164). In these
    /// countries an international number must be written with `+` or `00`.
    static let withoutTrunkPrefix: Set<Int> = [
        30,   // Greece
        34,   // Spain
        39,   // Italy
        45,   // Denmark
        47,   // Norway
        48,   // Poland
        52,   // Mexico (national prefixes abolished in 2019)
        65,   // Singapore
        298,  // Faroe Islands
        299,  // Greenland
        350,  // Gibraltar
        351,  // Portugal
        352,  // Luxembourg
        354,  // Iceland
        356,  // Malta
        357,  // Cyprus
        371,  // Latvia
        372,  // Estonia
        376,  // Andorra
        377,  // Monaco
        378,  // San Marino
        379,  // Vatican City
        420,  // Czech Republic
        423,  // Liechtenstein
        501, 502, 503, 504, 505, 506, 507,  // Belize ... Panama
        852,  // Hong Kong
        853,  // Macau
        965,  // Kuwait
        968,  // Oman
        973,  // Bahrain
        974,  // Qatar
    ]
}
