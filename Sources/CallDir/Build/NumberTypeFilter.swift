import CallDirNumberTypes
import CallDirNumbers
import CallDirReader

/// `compile --valid-only` and `--types`: keeps the numbers libphonenumber calls valid (of the
/// types named), counting each type kept for the summary. Off by default: a compile accepts
/// every number libphonenumber calls possible (CallKit takes any, and spoofed numbers are worth
/// blocking). Ranges and patterns are not checked: a type belongs to one number.
struct NumberTypeFilter {
    /// Whether each type (by its index in `NumberType.allCases`) is kept: one read per number,
    /// no hashing. A fixed-line-or-mobile number is kept when either is named.
    private let kept: [Bool]
    /// Numbers kept, by the type's index in `NumberType.allCases`.
    private var keptCounts = [Int](repeating: 0, count: NumberType.allCases.count)

    init?(validOnly: Bool, types: [String]) {
        guard validOnly || !types.isEmpty else { return nil }
        let named = Set(types.compactMap(NumberType.init(rawValue:)))
        kept = NumberType.allCases.map { type in
            types.isEmpty || named.contains(type)
                || type == .fixedLineOrMobile && (named.contains(.fixedLine) || named.contains(.mobile))
        }
    }

    /// Numbers kept, by type (types with none left out).
    var counts: [NumberType: Int] {
        var counts: [NumberType: Int] = [:]
        for (i, type) in NumberType.allCases.enumerated() where keptCounts[i] > 0 { counts[type] = keptCounts[i] }
        return counts
    }

    /// Why `number` is left out, or nil when it is kept (and counted).
    mutating func problem(_ number: Int64) -> RejectReason? {
        guard let type = NumberTypes.type(ofE164: number) else { return .invalidNumber }
        let index = type.index
        guard kept[index] else { return .excludedType }
        keptCounts[index] &+= 1
        return nil
    }
}
