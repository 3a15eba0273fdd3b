import CallDirNumberTypes
import CallDirReader

/// `compile --valid-only` and `--types`: keeps the numbers libphonenumber calls valid (of the
/// types named), counting each type kept for the summary. Off by default: a compile accepts
/// every number libphonenumber calls possible (CallKit takes any, and spoofed numbers are worth
/// blocking). Ranges and patterns are not checked: a type belongs to one number.
struct NumberTypeFilter {
    /// The types kept; nil for every type (`--valid-only` alone).
    let types: Set<NumberType>?
    /// Numbers kept, by type.
    private(set) var counts: [NumberType: Int] = [:]

    init?(validOnly: Bool, types: [String]) {
        guard validOnly || !types.isEmpty else { return nil }
        self.types = types.isEmpty ? nil : Set(types.compactMap(NumberType.init(rawValue:)))
    }

    /// Why `number` is left out, or nil when it is kept (and counted).
    mutating func problem(_ number: Int64) -> RejectReason? {
        guard let type = NumberTypes.type(ofE164: number) else { return .invalidNumber }
        if let types, !types.contains(type),
           !(type == .fixedLineOrMobile && (types.contains(.fixedLine) || types.contains(.mobile))) {
            return .excludedType
        }
        counts[type, default: 0] += 1
        return nil
    }
}
