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
    static func secondNumberStart(_ scalars: [Unicode.Scalar], from start: Int, to end: Int) -> Int? {
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
    static func isWordCharacter(_ scalar: Unicode.Scalar) -> Bool {
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

extension PossibleNumber {
    /// The number libphonenumber's `parse` finds in text calldir's scanner refuses, as ASCII
    /// `+digits` or `digits`, and its extension apart (`+1 800 555 5555 ext. 12`, `x12`,
    /// `;ext=12`, `,123`, `;123`), or nil when libphonenumber would find no number. Vanity
    /// letters are dialled digits when there are at least 3 (`1-800-FLOWERS`), else dropped;
    /// digits of any script count; text before the first digit or `+` is dropped
    /// (`Tel: +33 ...`). Off the hot path: asked only of fields refused as `invalid-character`.
    static func libphonenumberText(_ field: UnsafeRawBufferPointer) -> (number: [UInt8], extension: String?)? {
        let all = Array(String(decoding: field, as: UTF8.self).unicodeScalars)
        guard let start = all.firstIndex(where: { isPlus($0) || isDecimalDigit($0) }) else { return nil }
        var end = all.count
        while end > start, all[end - 1] != "#", all[end - 1] == "_" || !isWordCharacter(all[end - 1]) { end -= 1 }
        end = secondNumberStart(all, from: start, to: end) ?? end
        var text = Array(all[start..<end])
        var ext: String?
        if let (numberEnd, digits) = extensionSplit(text), isViable(text[..<numberEnd]) {
            ext = digits
            text = Array(text[..<numberEnd])
        }
        guard isViable(text[...]) else { return nil }
        let letters = text.filter { $0.value < 0x80 && ($0.value | 0x20) >= 0x61 && ($0.value | 0x20) <= 0x7A }.count
        // Only what calldir's scanner cannot read: an extension, letters, text before the
        // number (`Tel: `), digits or `+` of another script. A stray byte among ASCII digits (a
        // NUL, `!`) stays invalid-character.
        let foreign = all[start..<end].contains { $0.value >= 0x80 && (isDecimalDigit($0) || isPlus($0)) }
        let label = all[..<start].contains { $0.value < 0x80 && ($0.value | 0x20) >= 0x61 && ($0.value | 0x20) <= 0x7A }  // `Tel: `
        guard ext != nil || letters > 0 || label || foreign else { return nil }
        var out: [UInt8] = isPlus(text[0]) ? [0x2B] : []
        for scalar in text {
            if let digit = digitValue(scalar) { out.append(0x30 + digit) } else if letters >= 3, let key = keypad(scalar) { out.append(key) }
        }
        return out.count > (out.first == 0x2B ? 1 : 0) ? (out, ext) : nil
    }

    /// `_VALID_PHONE_NUMBER`: 2 digits alone, or at least 3 digits among punctuation, `*`,
    /// ASCII letters and a leading `+`.
    private static func isViable(_ text: ArraySlice<Unicode.Scalar>) -> Bool {
        var digits = 0
        for (i, scalar) in zip(text.indices, text) {
            if digitValue(scalar) != nil, isDecimalDigit(scalar) { digits += 1; continue }
            if isPlus(scalar), text[text.startIndex..<i].allSatisfy(isPlus) { continue }
            if scalar == "*" || isPunctuation(scalar) { continue }
            if scalar.value < 0x80, (scalar.value | 0x20) >= 0x61, (scalar.value | 0x20) <= 0x7A { continue }
            return false
        }
        return digits >= 3 || (digits == 2 && text.count == 2)
    }

    /// libphonenumber's `_VALID_PUNCTUATION`.
    private static func isPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x2D, 0x78, 0x2010...0x2015, 0x2212, 0x30FC, 0xFF0D...0xFF0F, 0x20, 0xA0, 0xAD, 0x200B, 0x2060, 0x3000,
             0x28, 0x29, 0xFF08, 0xFF09, 0xFF3B, 0xFF3D, 0x2E, 0x5B, 0x5D, 0x2F, 0x7E, 0x2053, 0x223C, 0xFF5E:
            return true
        default:
            return false
        }
    }

    /// The keypad digit of an ASCII letter (ABC 2 ... WXYZ 9).
    private static func keypad(_ scalar: Unicode.Scalar) -> UInt8? {
        guard scalar.value < 0x80 else { return nil }
        let c = scalar.value | 0x20
        guard c >= 0x61, c <= 0x7A else { return nil }
        let keys: [UInt8] = Array("22233344455566677778889999".utf8)
        return keys[Int(c - 0x61)]
    }

    /// Where the number ends and its extension's digits, when `text` ends with an extension
    /// libphonenumber's `_EXTN_PATTERNS_FOR_PARSING` finds (`;ext=12`, `ext. 12`, `x12`, `#12`,
    /// `int 12`, `,123`, `,,123`, `;123`, `- 503#`), or nil.
    private static func extensionSplit(_ text: [Unicode.Scalar]) -> (Int, String)? {
        let lower = text.map { $0.properties.lowercaseMapping.unicodeScalars.first ?? $0 }
        var end = lower.count
        let hash = end > 0 && (lower[end - 1] == "#" || lower[end - 1] == "\u{FF03}")
        if hash { end -= 1 }
        var first = end
        while first > 0, isDecimalDigit(lower[first - 1]) { first -= 1 }
        let count = end - first
        guard count > 0, first > 0 else { return nil }
        func matches(_ word: String, endingAt at: Int) -> Bool {
            let w = Array(word.unicodeScalars)
            return at >= w.count && Array(lower[(at - w.count)..<at]) == w
        }
        func skip(_ set: Set<Unicode.Scalar>, from at: Int) -> Int {
            var i = at
            while i > 0, set.contains(lower[i - 1]) { i -= 1 }
            return i
        }
        let beforeLabel: Set<Unicode.Scalar> = [" ", "\u{A0}", "\t", ","]
        if !hash, count <= 20, matches(";ext=", endingAt: first) { return (first - 5, digitString(lower[first..<end])) }
        // After a label: an optional `:` or `.`, then spaces, tabs, commas or dashes.
        var at = skip([" ", "\u{A0}", "\t", ",", "-"], from: first)
        if at > 0, lower[at - 1] == ":" || lower[at - 1] == "." || lower[at - 1] == "\u{FF0E}" { at -= 1 }
        let explicit = ["extensión", "extension", "extensio\u{301}n", "extension", "extn", "ext", "xtn", "xt", "anexo", "доб", "ｅｘｔｎ", "ｅｘｔ", "ｘｔｎ", "ｘｔ"]
        for label in explicit where count <= 20 && matches(label, endingAt: at) {
            return (skip(beforeLabel, from: at - label.unicodeScalars.count), digitString(lower[first..<end]))
        }
        for label in ["int", "ｉｎｔ", "x", "ｘ", "#", "＃", "~", "～"] where count <= 9 && matches(label, endingAt: at) {
            return (skip(beforeLabel, from: at - label.unicodeScalars.count), digitString(lower[first..<end]))
        }
        // Auto-dialling: `;` or `,,` (15 digits), or commas (9), with spaces before.
        let run = lower[skip([" ", "\u{A0}", "\t", ",", ";", "-", ":", ".", "\u{FF0E}"], from: first)..<first]
        if run.contains(";") || run.filter({ $0 == "," }).count >= 2, count <= 15 {
            return (skip([" ", "\u{A0}", "\t", ",", ";", "-", ":", ".", "\u{FF0E}"], from: first), digitString(lower[first..<end]))
        }
        if run.contains(","), count <= 9 {
            return (skip([" ", "\u{A0}", "\t", ",", ";", "-", ":", ".", "\u{FF0E}"], from: first), digitString(lower[first..<end]))
        }
        // American style: `- 503#`.
        if hash, count <= 6, !run.isEmpty, run.allSatisfy({ $0 == " " || $0 == "-" }) {
            return (first - run.count, digitString(lower[first..<end]))
        }
        return nil
    }

    private static func digitString(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        String(decoding: scalars.compactMap { digitValue($0).map { 0x30 + $0 } }, as: UTF8.self)
    }
}
