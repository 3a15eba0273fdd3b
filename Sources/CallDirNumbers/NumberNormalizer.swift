// The initialisers throw `CallDirError` (a `--country` no country uses): whoever imports the
// numbers can catch it without importing `CallDirErrors` too.
@_exported import CallDirErrors

/// Turns one field of an input list into an E.164 number or range, or says why it cannot.
///
/// The rules, in the order they apply:
///
/// 1. ASCII whitespace (space, tab, CR, LF) is trimmed at both ends, then an optional
///    `tel:` (any case). Nothing left: `empty`.
/// 2. Besides digits, a field may contain space, `-`, `.`, `(`, `)`, `/` and NBSP anywhere,
///    `#` wildcards, and `+` as its first character. Anything else: `invalid-character`.
///    A field with neither a digit nor a `#`: `empty`. A field refused so is then read as
///    libphonenumber's `parse` reads it (`PossibleNumber.libphonenumberText`), when that gives
///    a number: an extension kept apart (`x12`, `ext. 12`, `;ext=12`, `,123`, `;123`), vanity
///    letters (`1-800-FLOWERS`), digits of other scripts, a label before it (`Tel: ...`).
/// 3. A field is an explicit range when it splits at exactly one `-` with whitespace on at
///    least one side (`+1 800 555 0000 - +1 800 555 0099`), else at exactly one `..`, else
///    at its only `-` when both sides have at least 7 digits (`33162000000-33162999999`;
///    `1-800-555-5555` and `555-1234` are single numbers). Each side is normalised like a
///    field of its own, without wildcards; both must be numbers of the same length with
///    first <= last. Otherwise: `invalid-range`, except that a field split at a bare `-`
///    whose ends make no range is read as one number (`+972 1599-8263405`) when it is one.
/// 4. `#` stands for any one digit. Wildcards must be trailing (punctuation may sit between
///    them: `+41 21 560 ## ##`); a digit after a `#`: `invalid-pattern`. A pattern with k
///    wildcards after the digits P covers P·10^k ... P·10^k + 10^k − 1.
/// 5. A number (no wildcards) is parsed as libphonenumber's `parse(field, region)` parses it
///    (`ParsingRules`, docs/NUMBERS.md), `--country` giving the region (a region code: its own
///    rules, `--country CX 90667967` is +61 8 9066 7967, `--country BS 322 1234` +1 242 322
///    1234; a calling code: its main region's, US for 1, RU for 7, GB for 44, AU for 61): `+`,
///    or the region's international prefix not followed by 0 (`011` for 1, `00` for most; `00`
///    without `--country`), means a calling code follows; otherwise the region's own calling
///    code written in front is stripped when libphonenumber would (`390212345678` with 39 is
///    +39 02 1234 5678), and the national prefix for parsing is stripped (with its transform rule: Argentine `15` mobiles, Brazilian carrier
///    codes) when what is left has a possible length: `021 560 12 34` with 41 is +41 21 560 12 34,
///    and so is `+41 (0)21 560 12 34`, while Italy has none (`+39 (0)6...` keeps its 0).
///    Without `--country` the digits are E.164 (`14085555555`); a leading `0`, or a North
///    American national shape (`(469) 257-6503`): `missing-country-code`.
///    A pattern (`#` wildcards) keeps the simpler rules it always had: the trunk prefix
///    (`0`, `8` for 7, `06` for 36) is replaced by the calling code, `(0)` after a calling code
///    is dropped, other digits must start with the calling code.
/// 6. The E.164 result, wildcards included, must have 7 to 15 digits (`too-short`,
///    `too-long`) and must not start with `0` (`missing-country-code`). A pattern needs at
///    least 4 digits before its wildcards, country code included (`invalid-pattern`: no
///    "all of +44"). Then, unless `lenient`: a number must be what libphonenumber's
///    `is_possible_number` accepts (a possible length of its calling code's main region; a
///    local-only length, a number without its area code, is `too-short`); a pattern must
///    match its country's lengths and first digits (`CountryTable`: `invalid-leading-digit`),
///    and a +1 pattern's area code and exchange must not start with 0 or 1
///    (`invalid-area-code`). With `lenient` (`--lenient`, formerly `--no-nanp-check`) these
///    country rules are skipped, as CallKit skips them: any 7 to 15 digits not starting with 0
///    are taken, so spoofed caller IDs such as 4121213091 (8 digits after 41) can be listed and looked up.
///    Validity and number type (`--valid-only`, `--types`) are the compiler's, with the DFA
///    tables of `CallDirNumberTypes`, which neither the numbers nor the reader links.
/// 7. The number is the E.164 digit string read as an integer, which keeps leading zeros of
///    the national part since a country code never starts with 0.
///
/// `normalize(_:)` on raw bytes allocates nothing (the 7 national prefixes for parsing with a
/// transform rule, AR, BR, JP, GA, MG, SM, NF, run as `DigitPattern`s): a field of 8 to 16
/// plain digits is read 8 bytes at a time, any other field in one pass (two for a range, or
/// for a punctuated field without `--country`, whose North American shape is checked), then a
/// few walks of a DFA over its digits. Any bytes, including invalid UTF-8 and fields of any
/// length, are safe.
public struct NumberNormalizer: Sendable {
    /// The calling code given by `--country` (1, 33, 41...), or nil when every number
    /// must carry its own.
    public let country: Int?
    /// The region of `--country` when given as one (`CX`, uppercased), nil for a calling code.
    public let region: String?
    /// The rules national numbers are parsed with: the region's, else the code's main region's.
    let home: ParsingRules.Rules?

    enum Mode: Sendable, Equatable {
        case e164
        case northAmerica
        /// `trunk` nil: national numbers have no trunk prefix (Italy, Spain...).
        case national(code: UInt64, codeLength: Int, trunk: DigitPrefix?)
    }

    let mode: Mode
    /// Accept every number CallKit accepts (7 to 15 digits, not starting with 0): skip the
    /// per-country rules of rule 6 (`--lenient`), so spoofed caller IDs such as 4121213091 (8 digits after 41) can
    /// be listed and looked up.
    public let lenient: Bool
    /// `CountryTable.byPrefix`: possible lengths and first digits by a number's first 3 digits.
    private let rules: PrefixRules
    /// Numbers are parsed as libphonenumber parses them (false only for
    /// `northAmericanRulesOnly`, whose numbers are E.164 digits checked by rule 5 and `rules`).
    private let parsesNumbers: Bool
    /// The prefixes dialled before a foreign number in the `--country` given (`011` for 1,
    /// `00` for most); `00` without `--country`.
    let internationalPrefixes: PrefixList

    /// - Throws: `CallDirError` with code `.usage` unless `country` is nil or a calling code
    ///   some country uses.
    ///
    /// Untyped `throws`, not `throws(CallDirError)`: SILGen of a typed throw needs the standard
    /// library's `_willThrowTypedImpl` (Swift 6), which an older SDK's library lacks; Swift
    /// 6.3.1 then crashes with signal 11 in `emitThrow` compiling for iOS against the iOS 16.5
    /// SDK (scripts/ios-check). The phone's modules use no typed throws for that reason.
    public init(country: Int? = nil, lenient: Bool = false) throws {
        try self.init(country: country, region: nil, lenient: lenient, rules: CountryTable.byPrefix, parsesNumbers: true)
    }

    /// National numbers read with `region`'s own rules (`CX`, `JE`, `BS`: any case), as
    /// libphonenumber's `parse(text, region)` reads them; `country` is its calling code.
    /// - Throws: `CallDirError` with code `.usage` for a region libphonenumber does not know.
    public init(region: String, lenient: Bool = false) throws {
        guard let code = CountryTable.callingCode(forRegion: region) else {
            throw CallDirError(.usage, "--country needs a calling code some country uses, such as 1, 33 or 41, or a region such as US, FR or CH (got \(region))")
        }
        try self.init(country: code, region: region.uppercased(), lenient: lenient, rules: CountryTable.byPrefix, parsesNumbers: true)
    }

    /// `init(region:lenient:)` when `region` is given, else `init(country:lenient:)`: how a
    /// `--country` value (`CountryOption`: a code, and the region when written as one) reads.
    public init(country: Int?, region: String?, lenient: Bool = false) throws {
        if let region { try self.init(region: region, lenient: lenient) } else { try self.init(country: country, lenient: lenient) }
    }

    /// Only the North American rules of rule 6 (area code and exchange, 11 digits for +1),
    /// no other country's: what exports check their `FIRST-LAST` ends with, whatever rules
    /// the index was compiled with.
    package static func northAmericanRulesOnly() -> NumberNormalizer {
        try! NumberNormalizer(country: nil, region: nil, lenient: false, rules: CountryTable.anyNumber, parsesNumbers: false)  // nil is always valid
    }

    /// `parsesNumbers` is given, not found by comparing `rules` with `CountryTable.anyNumber`:
    /// building that table cost every one-shot lookup 15% of its instructions.
    private init(country: Int?, region: String?, lenient: Bool, rules: PrefixRules, parsesNumbers: Bool) throws {
        self.country = country
        self.region = region
        self.lenient = lenient
        self.rules = rules
        self.parsesNumbers = parsesNumbers
        guard let country else {
            home = nil
            mode = .e164
            internationalPrefixes = CountryTable.noCountryPrefixes  // not the whole table: a one-shot lookup starts here
            return
        }
        guard CountryTable.exists(country) else {
            throw CallDirError(.usage, "--country needs a calling code some country uses, such as 1, 33 or 41, or a region such as US, FR or CH (got \(country))")
        }
        internationalPrefixes = CountryTable.prefixLists[country]!  // exists: checked above
        home = region.flatMap(ParsingRules.rules(forRegion:)) ?? ParsingRules.table.rules[country]
        if country == 1 {
            mode = .northAmerica
        } else {
            let length = country < 10 ? 1 : country < 100 ? 2 : 3
            mode = .national(code: UInt64(country), codeLength: length,
                             trunk: CountryTable.trunkPrefix(country).flatMap(DigitPrefix.init))
        }
    }

    /// Normalises one field given as UTF-8 bytes, untrimmed. The hot path of a compile.
    ///
    /// An emergency number (`EmergencyNumbers`) is refused as `emergency-number`, whatever
    /// else the field would be: a possible number (South Africa's `10111` with `--country ZA`,
    /// `1220` with `--country CF --lenient`), a pattern written without `+` (`112#`) or a
    /// refused field (`sip:911@example.com`). Only refused fields, numbers of at most 9 E.164
    /// digits and patterns of at most 9 fixed digits are asked: one comparison on the hot path.
    public func normalize(_ field: UnsafeRawBufferPointer) -> Result<NormalizedEntry, RejectReason> {
        let result = normalizeField(field)
        switch result {
        case .success(.number(let number)) where number < Self.longestEmergencyE164:
            return emergencyNumber(field) != nil ? .failure(.emergencyNumber) : result
        case .failure(let reason) where reason != .emergencyNumber:
            if emergencyNumber(field) != nil { return .failure(.emergencyNumber) }
            // Letters, extensions, other digit scripts, text around the number: read as
            // libphonenumber's parse reads them (`PossibleNumber`), the extension left apart.
            // Only a number is taken so; otherwise the field keeps its reason (invalid-character).
            if reason == .invalidCharacter, parsesNumbers, let (text, _) = PossibleNumber.libphonenumberText(field),
               case .success(.number) = text.withUnsafeBytes({ normalizeField($0) }) {
                return text.withUnsafeBytes { normalizeField($0) }
            }
            return result
        case .success(.range(let range)) where range.first / (range.last &- range.first &+ 1) < Self.longestEmergencyE164:
            // `112#` is a pattern to calldir (`--lenient`: +44 1120...9), 112 to libphonenumber.
            // Not with `+` (`+33 112 ## ##` covers numbers, it names no emergency number).
            guard let (_, code) = EmergencyNumbers.dialled(field), code == nil else { return result }
            return emergencyNumber(field) != nil ? .failure(.emergencyNumber) : result
        default:
            return result
        }
    }

    /// Numbers below this (9 E.164 digits: a 3-digit calling code and 6 national digits) may
    /// be an emergency number written with `--country` or `+CC`.
    static let longestEmergencyE164: Int64 = 1_000_000_000

    /// `normalize(_:)` before the emergency-number check.
    @inline(__always)
    private func normalizeField(_ field: UnsafeRawBufferPointer) -> Result<NormalizedEntry, RejectReason> {
        var start = 0
        var end = field.count
        while start < end, isASCIIWhitespace(field[start]) { start += 1 }
        while end > start, isASCIIWhitespace(field[end - 1]) { end -= 1 }
        if end - start >= 4, hasTelScheme(field, at: start) { start += 4 }
        if start == end { return .failure(.empty) }

        // Fast path: 8 to 16 plain digits, the bulk of real lists, read 8 bytes at a time.
        if let value = plainDigits(field, from: start, to: end) {
            if let entry = plainNumber(value, length: end - start, lead: field[start]) { return entry }
            return finish(Digits(value: value, literal: end - start, wildcards: 0), plus: false)
        }
        // Next, a number written the usual ways (`+41 21 560 12 34`, `(11) 96127-0609`), read
        // in one pass; without --country and `+`, its North American shape is checked first.
        if parsesNumbers, let (digits, plus) = simpleNumberDigits(field, from: start, to: end), plus || mode != .e164 {
            return parsed(digits, plus: plus)
        }
        return normalizeScanned(field, from: start, to: end)
    }

    /// The number when `field` is exactly 8 to 16 digits that `normalize` accepts as they
    /// are (no whitespace, no prefix rule to apply, valid); nil sends the field through
    /// `normalize`. Small enough to inline into the compile loop, with no `Result` to build.
    /// No emergency-number check: 8 or more digits are never one (they have at most 6).
    @inline(__always)
    package func validPlainNumber(_ field: UnsafeRawBufferPointer) -> Int64? {
        guard let value = plainDigits(field, from: 0, to: field.count) else { return nil }
        let lead = field.load(as: UInt8.self)
        if case .success(.number(let number))? = plainNumber(value, length: field.count, lead: lead) { return number }
        guard parsesNumbers, case .success(.number(let number)) = parsed(Digits(value: value, literal: field.count, wildcards: 0), plus: false)
        else { return nil }
        return number
    }

    /// Normalises one field given as a string. Convenience for tests and one-off lookups.
    public func normalize(_ field: String) -> Result<NormalizedEntry, RejectReason> {
        var field = field
        return field.withUTF8 { normalize(UnsafeRawBufferPointer($0)) }
    }

    /// `finish` for plain digits not starting with 0 without `--country` or with
    /// `--country 1`, written out for those two modes (half the instructions of the general
    /// path: the whole compile is a few dozen per line). Nil for the other modes.
    @inline(__always)
    private func plainNumber(_ value: UInt64, length: Int, lead: UInt8) -> Result<NormalizedEntry, RejectReason>? {
        // 1 and 10 digits (no --country, or --country 1): libphonenumber keeps all 10 (a
        // national prefix 1 stripped from them would leave too few), always a possible length.
        // Every other field: the general path (`parsed`).
        guard parsesNumbers else { return nil }
        switch mode {
        case .e164, .northAmerica:
            // (Under --country 1, `11...` loses the national prefix after its calling code.)
            if length == 11, lead == 0x31, value / 1_000_000_000 % 10 != 1 || mode == .e164 { return .success(.number(Int64(value))) }
            if case .northAmerica = mode, length == 10, lead >= 0x32 { return .success(.number(Int64(value + 10_000_000_000))) }
            return nil
        case .national:
            return nil
        }
    }

    // MARK: - Fields with punctuation, wildcards or ranges

    private func normalizeScanned(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int)
        -> Result<NormalizedEntry, RejectReason>
    {
        let scan = FieldScan(bytes, from: start, to: end)
        if scan.invalidCharacter { return .failure(.invalidCharacter) }
        let digits = scan.digits
        if digits.total == 0 { return .failure(.empty) }
        switch rangeSplit(scan, from: start, to: end) {
        case .notARange:
            break
        case .ambiguous:
            return .failure(.invalidRange)
        case .at(let low, let high):
            let range = normalizeRange(bytes, low: low, high: high)
            // A bare `-` between two 7-digit sides is only a guess at a range; when its ends make
            // none, the field is one number, as libphonenumber reads `+972 1599-8263405`.
            guard case .failure = range, scan.separators.spacedDashes != 1, scan.separators.dotPairs != 1,
                  case .success(let single) = normalizeOne(bytes, scan, from: start, to: end)
            else { return range }
            return .success(single)
        }
        return normalizeOne(bytes, scan, from: start, to: end)
    }

    /// A scanned field that is not a range: one number or one pattern.
    private func normalizeOne(_ bytes: UnsafeRawBufferPointer, _ scan: FieldScan, from start: Int, to end: Int)
        -> Result<NormalizedEntry, RejectReason>
    {
        let digits = scan.digits
        if scan.misplacedPlus { return .failure(.invalidCharacter) }
        if scan.digitAfterWildcard || digits.literal == 0 { return .failure(.invalidPattern) }
        if digits.total > Digits.maxAccumulated {
            // A long international prefix (`0021 49 8001234567890` with BR, `0011 ...` with AU)
            // makes too many digits to accumulate: read the rest as `+` and the calling code.
            if !scan.plus, let international = afterInternationalPrefix(bytes, from: start, to: end) {
                return international.withUnsafeBytes { normalize($0) }
            }
            return .failure(.tooLong)
        }
        if case .e164 = mode, !scan.plus, looksNational(bytes, from: start, to: end) { return .failure(.missingCountryCode) }
        return finish(digits, plus: scan.plus, droppedZeroAfter: scan.droppedZeroAfter)
    }

    /// `+` and what follows the longest international prefix the field starts with (any of
    /// `internationalPrefixes`, any length: BR `0021` rather than `00`), or nil. Off the hot
    /// path: only fields of more digits than `Digits` holds come here.
    private func afterInternationalPrefix(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> [UInt8]? {
        var best: (length: Int, rest: Int)?
        var i = 0
        while i < internationalPrefixes.count {
            let prefix = internationalPrefixes.base[i]
            i &+= 1
            var value: UInt64 = 0
            var seen = 0
            var at = start
            while at < end, seen < prefix.length {
                let digit = bytes[at] &- 0x30
                if digit < 10 { value = value * 10 + UInt64(digit); seen += 1 }
                at += 1
            }
            guard seen == prefix.length, value == prefix.value, prefix.length > best?.length ?? 0 else { continue }
            best = (prefix.length, at)
        }
        return best.map { [0x2B] + Array(bytes[$0.rest..<end]) }
    }

    enum Split {
        case notARange
        case ambiguous
        case at(low: Range<Int>, high: Range<Int>)
    }

    /// Where a scanned field splits into the two ends of a range (rule 3).
    func rangeSplit(_ scan: FieldScan, from start: Int, to end: Int) -> Split {
        let s = scan.separators
        if s.spacedDashes == 1 {
            if s.dotPairs == 1 { return .ambiguous }
            return .at(low: start..<s.lastSpacedDash, high: (s.lastSpacedDash + 1)..<end)
        }
        if s.dotPairs == 1 {
            return .at(low: start..<s.lastDotPair, high: (s.lastDotPair + 2)..<end)
        }
        let minimum = E164.minDigits
        if s.dashes == 1, s.totalBeforeLastDash >= minimum,
           scan.digits.total - s.totalBeforeLastDash >= minimum
        {
            return .at(low: start..<s.lastDash, high: (s.lastDash + 1)..<end)
        }
        return .notARange
    }

    private func normalizeRange(_ bytes: UnsafeRawBufferPointer, low: Range<Int>, high: Range<Int>)
        -> Result<NormalizedEntry, RejectReason>
    {
        let first: Int64
        let last: Int64
        switch rangeEnd(bytes, low) {
        case .success(let value): first = value
        case .failure(let reason): return .failure(reason)
        }
        switch rangeEnd(bytes, high) {
        case .success(let value): last = value
        case .failure(let reason): return .failure(reason)
        }
        guard E164.digitCount(first) == E164.digitCount(last), first <= last else {
            return .failure(.invalidRange)
        }
        return .success(.range(NumberRange(first: first, last: last)))
    }

    /// One end of an explicit range: a single number, no wildcards.
    func rangeEnd(_ bytes: UnsafeRawBufferPointer, _ side: Range<Int>) -> Result<Int64, RejectReason> {
        let scan = FieldScan(bytes, from: side.lowerBound, to: side.upperBound)
        if scan.invalidCharacter || scan.misplacedPlus { return .failure(.invalidCharacter) }
        let digits = scan.digits
        guard digits.wildcards == 0, digits.literal > 0, digits.literal <= Digits.maxAccumulated,
              case .success(.number(let value)) = finish(digits, plus: scan.plus, droppedZeroAfter: scan.droppedZeroAfter)
        else { return .failure(.invalidRange) }
        return .success(value)
    }

    // MARK: - Prefixes and validation

    /// Applies the prefix rules, then validates the E.164 result.
    /// Needs `digits.total <= Digits.maxAccumulated` and at least one literal digit.
    @inline(__always)
    private func finish(_ digits: Digits, plus: Bool, droppedZeroAfter: Int = 0) -> Result<NormalizedEntry, RejectReason> {
        if digits.wildcards == 0, parsesNumbers {
            if droppedZeroAfter > 0, digits.literal < Digits.maxAccumulated {
                return parsed(digits.insertingZero(after: droppedZeroAfter), plus: plus)
            }
            return parsed(digits, plus: plus)
        }
        switch international(digits, plus: plus) {
        case .success(let e164): return validate(e164)
        case .failure(let reason): return .failure(reason)
        }
    }

    /// A number (no wildcards) as libphonenumber parses it (`ParsingRules`), then rule 6:
    /// 7 to 15 E.164 digits, and by default a possible length for its calling code.
    private func parsed(_ digits: Digits, plus: Bool) -> Result<NormalizedEntry, RejectReason> {
        let table = ParsingRules.table  // read once: each read checks that it is built
        switch ParsingRules.parse(digits, plus: plus, region: home, internationalPrefixes: internationalPrefixes, table: table) {
        case .success(let (code, national)):
            let codeLength = code < 10 ? 1 : code < 100 ? 2 : 3
            if national.literal + codeLength > E164.maxDigits { return .failure(.tooLong) }
            let e164 = national.prepending(UInt64(code), length: codeLength)
            if e164.literal < E164.minDigits { return .failure(.tooShort) }
            if !lenient, let problem = ParsingRules.possibility(national, code: code, table) { return .failure(problem) }
            return .success(.number(Int64(e164.value)))
        case .failure(let reason):
            // --lenient takes any 7 to 15 digits CallKit takes, also under no calling code in use.
            if lenient, reason == .unknownCountryCode, plus || country == nil { return validate(digits) }
            return .failure(reason)
        }
    }

    /// Rule 5: the digits as E.164 (country code first).
    @inline(__always)
    func international(_ digits: Digits, plus: Bool) -> Result<Digits, RejectReason> {
        if plus { return .success(digits) }
        var i = 0
        while i < internationalPrefixes.count {
            let prefix = internationalPrefixes.base[i]
            if digits.startsWith(prefix.value, length: prefix.length) {
                return .success(digits.dropping(prefix.value, length: prefix.length))
            }
            i &+= 1
        }
        switch mode {
        case .e164:
            if digits.startsWith(0, length: 1) { return .failure(.missingCountryCode) }
            return .success(digits)
        case .northAmerica:
            if digits.total == 10 { return .success(digits.prepending(1, length: 1)) }
            if digits.total == 11, digits.startsWith(1, length: 1) { return .success(digits) }
            // 11 digits must be 1 + 10 (`07453775817` is not North American); longer ones
            // are too long, `00...` included: North America's international prefix is 011.
            if digits.total == 11 { return .failure(.invalidLeadingDigit) }
            return .failure(digits.total < 10 ? .tooShort : .tooLong)
        case .national(let code, let codeLength, let trunk?):
            guard digits.startsWith(trunk.value, length: trunk.length) else {
                // Not national: it must then carry this country's code. Anything else would
                // be a guess (`215601234` with 41 is a Swiss number that lost its 0).
                return digits.startsWith(code, length: codeLength) ? .success(digits) : .failure(.missingCountryCode)
            }
            return prepend(code, length: codeLength, to: digits.dropping(trunk.value, length: trunk.length))
        case .national(let code, let codeLength, nil):
            return prepend(code, length: codeLength, to: digits)
        }
    }

    @inline(__always)
    private func prepend(_ code: UInt64, length: Int, to digits: Digits) -> Result<Digits, RejectReason> {
        // Checked first so the arithmetic cannot overflow.
        if digits.total + length > E164.maxDigits { return .failure(.tooLong) }
        return .success(digits.prepending(code, length: length))
    }

    /// Rules 6 and 7 on E.164 digits.
    @inline(__always)
    private func validate(_ e164: Digits) -> Result<NormalizedEntry, RejectReason> {
        let length = e164.total
        if length < E164.minDigits { return .failure(.tooShort) }
        if length > E164.maxDigits { return .failure(.tooLong) }
        if e164.literal == 0 { return .failure(.invalidPattern) }
        if e164.startsWith(0, length: 1) { return .failure(.missingCountryCode) }
        if e164.wildcards > 0, e164.literal < Self.minPatternDigits { return .failure(.invalidPattern) }
        let scale = powerOfTen(e164.wildcards)
        let first = e164.value * scale
        if !lenient, let problem = countryProblem(first, literal: e164.literal, total: length) {
            return .failure(problem)
        }
        // Always true for 7 to 15 digits not starting with 0; kept as the contract's guard.
        let low = Int64(first)
        let high = Int64(first + (scale - 1))
        guard E164.validValues.contains(low), E164.validValues.contains(high) else {
            return .failure(.tooLong)
        }
        return .success(e164.wildcards == 0 ? .number(low) : .range(NumberRange(first: low, last: high)))
    }

    /// A pattern must fix at least this many digits, country code included.
    static let minPatternDigits = 4

    /// Rule 6's per-country part, on E.164 digits (`number` is them with wildcards as 0):
    /// the calling code must exist, the national part must have a possible length and a
    /// possible first digit (`CountryTable`), and a +1 number must have 11 digits and a
    /// possible area code and exchange. Needs `literal >= 4`, `total <= 15`. Divisions by
    /// constants and one read of `PrefixRules`.
    @inline(__always)
    private func countryProblem(_ number: UInt64, literal: Int, total: Int) -> RejectReason? {
        if total == 11, number &- 10_000_000_000 < 10_000_000_000 {  // 1 + 10 digits, most of most lists
            return isPossibleNorthAmerican(number, literal: literal) ? nil : .invalidAreaCode
        }
        let head = leadingFourDigits(number, total: total)
        if head < 2000 {  // +1
            if total != 11 { return total < 11 ? .tooShort : .tooLong }
            return isPossibleNorthAmerican(number, literal: literal) ? nil : .invalidAreaCode
        }
        // Masking shifts (`&>>`): the amounts are below 32, and Swift's `>>` would test for that.
        let rule = rules[head / 10]
        if rule == 0 { return .unknownCountryCode }
        let national = UInt32(truncatingIfNeeded: total) &- rule &>> 30
        if rule &>> national & 1 == 0 {
            return rule & ((1 &<< national) &- 1) == 0 ? .tooShort : .tooLong
        }
        return rule &>> (20 &+ UInt32(truncatingIfNeeded: head % 10)) & 1 == 0 ? .invalidLeadingDigit : nil
    }

    /// The first 4 of `total` (7 to 15) digits: divisions by constants, which compile to
    /// multiplications, rather than one by a power of ten looked up.
    @inline(__always)
    private func leadingFourDigits(_ number: UInt64, total: Int) -> UInt64 {
        switch total {
        case 7: return number / 1_000
        case 8: return number / 10_000
        case 9: return number / 100_000
        case 10: return number / 1_000_000
        case 11: return number / 10_000_000
        case 12: return number / 100_000_000
        case 13: return number / 1_000_000_000
        case 14: return number / 10_000_000_000
        default: return number / powerOfTen(total - 4)
        }
    }

    /// Area code (digit 2) and exchange (digit 5) of an 11-digit `1...` number start with
    /// 2-9. Only digits among the `literal` leading ones are checked.
    @inline(__always)
    private func isPossibleNorthAmerican(_ number: UInt64, literal: Int) -> Bool {
        if literal >= 2, number / 1_000_000_000 % 10 < 2 { return false }
        if literal >= 5, number / 1_000_000 % 10 < 2 { return false }
        return true
    }
}

@inline(__always)
private func isASCIIWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
}

/// `tel:` in any case at `start`; the caller checks that 4 bytes are there.
@inline(__always)
private func hasTelScheme(_ bytes: UnsafeRawBufferPointer, at start: Int) -> Bool {
    bytes[start] | 0x20 == 0x74 && bytes[start + 1] | 0x20 == 0x65
        && bytes[start + 2] | 0x20 == 0x6C && bytes[start + 3] == 0x3A
}
