/// The digits libphonenumber finds in any text: its `extract_possible_number` followed by
/// `normalize_digits_only`, for the fields calldir's own scanner refuses or finds short.
///
/// `extract_possible_number` starts at the first `+`, `＋` or decimal digit of any script
/// (`Tel: 112` reads from `1`), drops trailing characters that are neither letters, digits
/// nor `#` (`911;` is `911`), and cuts a second number written `/x` or `\ x`.
/// `normalize_digits_only` then keeps every character with a digit value, of any script
/// (fullwidth `１１２`, Arabic-Indic `١١٢`, Persian `۱۱۲`), and drops everything else, letters
/// included: `sip:911@example.com` is `911`, `112#` is `112`.
///
/// Off the hot path: it decodes the field into Unicode scalars (invalid UTF-8 becomes
/// U+FFFD, which is no digit), so only fields already refused, or short, come here.
enum PossibleNumber {
    /// Whether the text starts with a plus sign (after `extract_possible_number`), and its
    /// digits as ASCII bytes; nil when it holds no `+` and no digit at all. At most
    /// `maxDigits` digits are kept: `tooMany` says more followed.
    static func digits(_ field: UnsafeRawBufferPointer, maxDigits: Int = 32) -> (plus: Bool, digits: [UInt8], tooMany: Bool)? {
        let scalars = Array(String(decoding: field, as: UTF8.self).unicodeScalars)
        guard let start = scalars.firstIndex(where: { isPlus($0) || isDecimalDigit($0) }) else { return nil }
        var end = scalars.count
        // Trailing characters that are not a letter, a number or `#` (Python's `(?:_|[^#\w])+$`).
        while end > start, scalars[end - 1] != "#", scalars[end - 1] == "_" || !isWordCharacter(scalars[end - 1]) { end -= 1 }
        end = secondNumberStart(scalars, from: start, to: end) ?? end
        var digits: [UInt8] = []
        var tooMany = false
        for scalar in scalars[start..<end] {
            guard let value = digitValue(scalar) else { continue }
            guard digits.count < maxDigits else { tooMany = true; break }
            digits.append(0x30 + value)
        }
        return (isPlus(scalars[start]), digits, tooMany)
    }

    /// Where a second number starts (`[\\/] *x`: `(530) 583-6985 x302/x2303`), or nil.
    private static func secondNumberStart(_ scalars: [Unicode.Scalar], from start: Int, to end: Int) -> Int? {
        var i = start
        while i < end {
            if scalars[i] == "/" || scalars[i] == "\\" {
                var j = i + 1
                while j < end, scalars[j] == " " { j += 1 }
                if j < end, scalars[j] == "x" { return i }
            }
            i += 1
        }
        return nil
    }

    static func isPlus(_ scalar: Unicode.Scalar) -> Bool { scalar == "+" || scalar == "\u{FF0B}" }

    /// A decimal digit of any script (`\d`, Unicode category Nd): where a number may start.
    static func isDecimalDigit(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x80 { return scalar.value >= 0x30 && scalar.value <= 0x39 }
        return scalar.properties.generalCategory == .decimalNumber
    }

    /// The digit value Python's `unicodedata.digit` gives (decimal digits of any script, and
    /// digits such as `²`), or nil.
    static func digitValue(_ scalar: Unicode.Scalar) -> UInt8? {
        if scalar.value < 0x80 { return scalar.value >= 0x30 && scalar.value <= 0x39 ? UInt8(scalar.value - 0x30) : nil }
        let properties = scalar.properties
        guard properties.numericType == .decimal || properties.numericType == .digit,
              let value = properties.numericValue, value >= 0, value <= 9 else { return nil }
        return UInt8(value)
    }

    /// A letter or a number (Python's `\w` less `_`).
    private static func isWordCharacter(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x80 {
            let v = scalar.value
            return (v >= 0x30 && v <= 0x39) || (v | 0x20 >= 0x61 && v | 0x20 <= 0x7A)
        }
        let properties = scalar.properties
        if properties.numericType != nil { return true }
        switch properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter: return true
        default: return false
        }
    }
}
