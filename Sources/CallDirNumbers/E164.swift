/// Facts about the numbers CallKit accepts.
///
/// CallKit's `CXCallDirectoryPhoneNumber` is a signed 64-bit integer holding the country
/// calling code followed by the national number: E.164 digits without '+'. The integer is
/// always built from the full digit string, so leading zeros of the national part survive.
package enum E164 {
    /// E.164 allows at most 15 digits.
    package static let maxDigits = 15
    /// The shortest possible international number (country code + subscriber number).
    package static let minDigits = 7
    /// CallKit treats 0 as a duplicate and Int64.max as out of range.
    package static let validValues: ClosedRange<Int64> = 1...(Int64.max - 1)
    /// The largest number of at most `maxDigits` digits: no list yields more, so a stored
    /// range ending past it is damage.
    package static let largestNumber: Int64 = 999_999_999_999_999

    /// Number of decimal digits of a positive value.
    @inlinable
    package static func digitCount(_ value: Int64) -> Int {
        var n = 1
        var v = value / 10
        while v > 0 { n += 1; v /= 10 }
        return n
    }
}

/// An inclusive range of numbers of one length, such as `33162######`
/// (33162000000 through 33162999999). Ranges are stored as ranges, never expanded.
public struct NumberRange: Hashable, Sendable, Comparable {
    /// The first number of the range.
    public var first: Int64
    /// The last number of the range (inclusive).
    public var last: Int64

    /// The numbers from `first` to `last`, both included.
    public init(first: Int64, last: Int64) {
        precondition(first <= last, "NumberRange needs first <= last")
        self.first = first
        self.last = last
    }

    /// How many numbers the range covers.
    public var count: Int64 { last - first + 1 }

    /// Whether `number` is in the range.
    public func contains(_ number: Int64) -> Bool { first <= number && number <= last }

    public static func < (a: NumberRange, b: NumberRange) -> Bool {
        (a.first, a.last) < (b.first, b.last)
    }
}
