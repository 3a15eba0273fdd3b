extension NumberNormalizer {
    /// The sentence a diagnostic shows for a rejected field: `reason` with the rule that
    /// failed, named for this number and country ("+46 numbers have 6 to 10 or 12 digits
    /// after 46; this has 11"; "a North American number (+1) has 11 digits; this has 12").
    /// Off the hot path: it normalises the field again, only when it is rejected.
    public func explain(_ field: UnsafeRawBufferPointer, _ reason: RejectReason) -> String {
        if reason == .invalidCharacter { return Self.invalidCharacter(field) }
        if reason == .emergencyNumber { return emergencyExplanation(field) }
        if reason == .invalidRange { return invalidRange(field) }
        guard RejectReason.normalizerReasons.contains(reason), let scan = scanned(field) else { return reason.explanation }
        let digits = scan.digits
        if reason == .missingCountryCode { return missingCountryCode(scan, field) }
        if case .tooLong(let code, let national)? = parsedLength(scan) {
            return "E.164 numbers have at most 15 digits; +\(code) and \(national) national digits make \(String(code).count + national)"
        }
        guard digits.total <= Digits.maxAccumulated, case .success(let e164) = e164Digits(scan) else {
            if case .northAmerica = mode, !scan.plus {
                let hint = digits.literal <= Digits.maxAccumulated && digits.startsWith(0, length: 2) && !digits.startsWith(11, length: 3)
                    ? " (00 is not North America's international prefix: 011 is)" : ""
                if reason == .invalidLeadingDigit {
                    return "with --country 1 a number of 11 digits is 1 and a 10-digit North American number; this one starts with \(Self.digitString(digits).prefix(1))"
                }
                return "with --country 1 a number has 10 digits, or 11 starting with 1 (North America); this has \(digits.total)\(hint)"
            }
            return reason == .tooLong ? "E.164 numbers have at most 15 digits; this has \(digits.total)" : reason.explanation
        }
        let total = e164.total
        if total < E164.minDigits || total > E164.maxDigits {
            return "E.164 numbers have 7 to 15 digits, country code included; this has \(total)"
        }
        let text = Self.digitString(e164)
        if text.hasPrefix("0") { return "a country calling code never starts with 0 (+\(text))" }
        if text.hasPrefix("1") {
            if reason == .invalidAreaCode { return reason.explanation }
            let written00 = country == 1 && !scan.plus && digits.startsWith(0, length: 2)
            if country == 1, !scan.plus, !written00 {
                // The digits typed, not those with the 1 put in front (`07453775817` has 11).
                let lead = Self.digitString(digits).prefix(1)
                return "with --country 1 a number has 10 digits, or 11 starting with 1 (North America); this has \(digits.total)"
                    + (digits.total == 11 ? ", starting with \(lead)" : "")
            }
            return "a North American number (+1) has 11 digits; this has \(total)"
                + (total == 10 && country == nil ? " (a national number? pass --country 1)" : "")
                + (written00 ? " (00 is not North America's international prefix: 011 is)" : "")
        }
        let code = (1...3).lazy.compactMap { Int(text.prefix($0)) }.first { CountryTable.exists($0) }
        guard let code else {
            let tried = (1...3).map { "+" + text.prefix($0) }.joined(separator: ", ")
            let hint = country == nil && !scan.plus && digits.total == 10 && text.first! >= "2" && Array(text)[3] >= "2"
                ? " (a North American number without its 1? pass --country 1)" : ""
            return "no country uses any of the calling codes \(tried) (libphonenumber \(CountryTable.metadataVersion))" + hint
        }
        let codeDigits = String(code).count
        let national = total - codeDigits
        let who = "+\(code) numbers"
        // `4692576503` without --country: most likely a North American number without its 1.
        let nanpHint = country == nil && !scan.plus && digits.total == 10 && digits.wildcards == 0
            && text.first! >= "2" && Array(text)[3] >= "2" ? " (a North American number without its 1? pass --country 1)" : ""
        switch reason {
        case .tooShort, .tooLong:
            return "\(who) have \(CountryTable.describeLengths(CountryTable.nationalLengths(code))) digits after \(code); this has \(national)" + nanpHint
        case .invalidLeadingDigit:
            let first = text.dropFirst(codeDigits).prefix(1)
            return "\(who) start with \(CountryTable.describeLengths(CountryTable.leadingDigits(code))) after \(code); this starts with \(first)" + nanpHint
        default:
            return reason.explanation
        }
    }

    private enum ParsedLength { case fits, tooLong(code: Int, national: Int) }

    /// Whether a number (no wildcards), parsed as `normalize` parses it, has too many digits.
    private func parsedLength(_ scan: FieldScan) -> ParsedLength? {
        guard let (code, national) = parsedNumber(scan) else { return nil }
        return String(code).count + national.literal > E164.maxDigits ? .tooLong(code: code, national: national.literal) : .fits
    }

    /// The E.164 digits the rules of rule 6 were checked on: libphonenumber's parse for a
    /// number, rule 5 for a pattern.
    private func e164Digits(_ scan: FieldScan) -> Result<Digits, RejectReason> {
        if let (code, national) = parsedNumber(scan), String(code).count + national.literal <= E164.maxDigits {
            return .success(national.prepending(UInt64(code), length: String(code).count))
        }
        return international(scan.digits, plus: scan.plus)
    }

    private func parsedNumber(_ scan: FieldScan) -> (code: Int, national: Digits)? {
        let digits = scan.digits
        guard digits.wildcards == 0, digits.literal < Digits.maxAccumulated,
              case .success(let parsed) = ParsingRules.parse(
                  scan.droppedZeroAfter > 0 ? digits.insertingZero(after: scan.droppedZeroAfter) : digits,
                  plus: scan.plus, region: home, internationalPrefixes: internationalPrefixes)
        else { return nil }
        return parsed
    }

    /// `explain(_:_:)` of a field given as a string.
    public func explain(_ field: String, _ reason: RejectReason) -> String {
        var field = field
        return field.withUTF8 { explain(UnsafeRawBufferPointer($0), reason) }
    }

    private func missingCountryCode(_ scan: FieldScan, _ field: UnsafeRawBufferPointer) -> String {
        if scan.plus { return "a country calling code never starts with 0" }
        switch mode {
        case .e164 where Self.digitString(scan.digits).hasPrefix("011"):
            return "011 is North America's international prefix: pass --country 1 (011 then the calling code), or write + in its place"
        case .e164, .northAmerica:
            return looksNational(field, from: 0, to: field.count)
                ? "a national number (written the North American way), without its country code: pass --country (--country 1 for North America)"
                : "a national number (leading trunk prefix 0), without its country code: pass --country with its country's calling code (41, 33...)"
        case .national(let code, _, let trunk):
            let trunkText = trunk.map { " the trunk prefix \(String(repeating: "0", count: $0.length - String($0.value).count))\($0.value)," } ?? ""
            return "with --country \(code) a number starts with\(trunkText) the country code \(code), an international prefix or +"
        }
    }

    /// What in `field` is not part of a number: an extension after it (`x12`, `ext. 12`), or
    /// the first character that is neither a digit, `#`, `+` nor phone punctuation.
    static func invalidCharacter(_ field: UnsafeRawBufferPointer) -> String {
        let scalars = Array(String(decoding: field, as: UTF8.self).unicodeScalars)
        if let (number, suffix) = extensionSplit(scalars) {
            return "an extension ('\(suffix)') is not part of a phone number: look up '\(number)'"
        }
        let allowed: Set<Unicode.Scalar> = [" ", "\t", "\r", "\n", "#", "+", "-", ".", "(", ")", "/", "\u{A0}"]
        guard let bad = scalars.first(where: { !allowed.contains($0) && !("0"..."9").contains($0) }) else {
            return RejectReason.invalidCharacter.explanation
        }
        let shown = bad.value < 0x20 || (0x7F..<0xA0).contains(bad.value) ? "" : "'\(bad)' "
        let code = String(bad.value, radix: 16, uppercase: true)
        return "\(shown)(U+\(String(repeating: "0", count: max(0, 4 - code.count)))\(code)) is not a digit or phone punctuation"
    }

    /// `+1 469 257 6503 x12` -> ("+1 469 257 6503", "x12"): a number, then `x`, `ext`, `ext.`
    /// or `extension` (any case) and digits to the end.
    static func extensionSplit(_ scalars: [Unicode.Scalar]) -> (number: String, suffix: String)? {
        var end = scalars.count
        while end > 0, scalars[end - 1] == " " { end -= 1 }
        var digitsStart = end
        while digitsStart > 0, ("0"..."9").contains(scalars[digitsStart - 1]) { digitsStart -= 1 }
        guard digitsStart < end else { return nil }
        var wordEnd = digitsStart
        while wordEnd > 0, scalars[wordEnd - 1] == " " || scalars[wordEnd - 1] == "." { wordEnd -= 1 }
        let lower = String(String.UnicodeScalarView(scalars[..<wordEnd])).lowercased()
        guard let word = ["extension", "ext", "x"].first(where: { lower.hasSuffix($0) }) else { return nil }
        var numberEnd = wordEnd - word.unicodeScalars.count
        while numberEnd > 0, scalars[numberEnd - 1] == " " || scalars[numberEnd - 1] == "," { numberEnd -= 1 }
        guard numberEnd > 0, ("0"..."9").contains(scalars[numberEnd - 1]) || scalars[numberEnd - 1] == ")" else { return nil }
        let number = String(String.UnicodeScalarView(scalars[..<numberEnd]))
        let suffix = String(String.UnicodeScalarView(scalars[(wordEnd - word.unicodeScalars.count)..<end]))
        return (number.drop { $0 == " " }.description, suffix)
    }

    /// The field's digits as `normalize` scans them, when it is not a range.
    private func scanned(_ field: UnsafeRawBufferPointer) -> FieldScan? {
        guard let (start, end) = trimmed(field) else { return nil }
        let scan = FieldScan(field, from: start, to: end)
        guard !scan.invalidCharacter, scan.digits.literal > 0 else { return nil }
        return scan
    }

    /// The field without surrounding whitespace and `tel:`, nil when nothing is left.
    private func trimmed(_ field: UnsafeRawBufferPointer) -> (start: Int, end: Int)? {
        var start = 0
        var end = field.count
        while start < end, [0x20, 0x09, 0x0D, 0x0A].contains(field[start]) { start += 1 }
        while end > start, [0x20, 0x09, 0x0D, 0x0A].contains(field[end - 1]) { end -= 1 }
        if end - start >= 4, field[start] | 0x20 == 0x74, field[start + 1] | 0x20 == 0x65,
           field[start + 2] | 0x20 == 0x6C, field[start + 3] == 0x3A { start += 4 }
        return start < end ? (start, end) : nil
    }

    /// Why a range is refused, true for this range: an end that is not a possible number
    /// (and the rule it breaks), ends of different lengths, or ends in the wrong order.
    private func invalidRange(_ field: UnsafeRawBufferPointer) -> String {
        guard let (start, end) = trimmed(field) else { return RejectReason.invalidRange.explanation }
        let scan = FieldScan(field, from: start, to: end)
        guard case .at(let low, let high) = rangeSplit(scan, from: start, to: end) else {
            return "a range has one separator, ' - ' or '..', between two numbers"
        }
        var ends: [Int64] = []
        for (name, side) in [("first", low), ("last", high)] {
            switch rangeEnd(field, side) {
            case .success(let value): ends.append(value)
            case .failure:
                let text = UnsafeRawBufferPointer(rebasing: field[side])
                // Trimmed, control characters never echoed (the explanation goes to terminals).
                let scalars = String(decoding: text, as: UTF8.self).unicodeScalars.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()
                let shown = String(String.UnicodeScalarView(scalars.map { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) ? "\u{FFFD}" : $0 }))
                guard case .failure(let reason) = normalize(text), reason != .invalidRange else {
                    return "the \(name) end of a range ('\(shown)') must be one number, without wildcards"
                }
                return "the \(name) end of the range, '\(shown)', is not a possible number: \(explain(text, reason)) (\(reason.rawValue))"
            }
        }
        if E164.digitCount(ends[0]) != E164.digitCount(ends[1]) {
            return "the ends of a range must have as many digits: +\(ends[0]) has \(E164.digitCount(ends[0])), +\(ends[1]) has \(E164.digitCount(ends[1]))"
        }
        return "the first end of a range must not be above the last: +\(ends[0]) is above +\(ends[1])"
    }

    /// E.164 digits with `#` for wildcards, leading zeros kept.
    static func digitString(_ digits: Digits) -> String {
        let value = String(digits.value)
        let zeros = max(0, digits.literal - value.count)
        return String(repeating: "0", count: zeros) + value + String(repeating: "#", count: digits.wildcards)
    }
}
