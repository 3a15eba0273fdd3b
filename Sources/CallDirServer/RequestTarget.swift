/// Where a request target points. Parsed on raw bytes, in one pass and without allocating
/// beyond the number's `String`: String's Character APIs (grapheme breaking) cost more than the
/// lookup itself.
///
/// A single lookup's target is taken only when it is understood completely, since a PBX builds
/// it from a caller-controlled SIP user part: `/v1/lookup/` then one number (unreserved
/// characters, `+ ( ) * , ! ' : @ $` and `%XX` escapes), then at most one `?format=json|text|status`.
/// Anything else (a `/`, `;`, `&`, `=` or `#` in the number, an escape that decodes to one of
/// `/ ? ; & = %` or a control character, a second `?`, an empty, unknown or repeated query
/// parameter) is `badLookup`: a 400 whose first word is `error`, never a verdict.
enum RequestTarget: Equatable {
    /// The percent-decoded number, and the shape the query asked for (nil: none, see `Accept`).
    case lookup(String, format: ResponseFormat?)
    /// A lookup target that is not fully understood, and the shape asked for if the query was.
    case badLookup(BadLookup, format: ResponseFormat?)
    case batch, healthz, metrics, unknown

    init(_ uri: UnsafeBufferPointer<UInt8>) {
        let end = uri.firstIndex(of: UInt8(ascii: "?")) ?? uri.count
        let path = UnsafeBufferPointer(rebasing: uri[..<end])
        let prefix: StaticString = "/v1/lookup/"
        let prefixBytes = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        if path.count >= prefixBytes.count, path.prefix(prefixBytes.count).elementsEqual(prefixBytes) {
            self = RequestTarget.parseLookup(number: UnsafeBufferPointer(rebasing: path[prefixBytes.count...]),
                                           query: end < uri.count ? UnsafeBufferPointer(rebasing: uri[(end + 1)...]) : nil)
        } else if path.elementsEqual("/v1/lookup".utf8) {
            self = .batch
        } else if path.elementsEqual("/healthz".utf8) {
            self = .healthz
        } else if path.elementsEqual("/metrics".utf8) {
            self = .metrics
        } else {
            self = .unknown
        }
    }

    private static func parseLookup(number raw: UnsafeBufferPointer<UInt8>, query: UnsafeBufferPointer<UInt8>?) -> RequestTarget {
        var format: ResponseFormat?
        if let query {
            switch ResponseFormat.parse(query: query) {
            case .success(let asked): format = asked
            case .failure(let why): return .badLookup(why, format: nil)
            }
        }
        var escaped = false
        for byte in raw {
            if byte == UInt8(ascii: "%") { escaped = true; continue }
            guard byte.isNumberByte, byte != UInt8(ascii: " "), byte != UInt8(ascii: "#") else {
                return .badLookup(.pathCharacter, format: format)
            }
        }
        guard escaped else {
            guard let number = String(validating: raw, as: UTF8.self) else { return .badLookup(.encoding, format: format) }
            return .lookup(number, format: format)
        }
        switch percentDecoded(raw) {
        case .success(let number): return .lookup(number, format: format)
        case .failure(let why): return .badLookup(why, format: format)
        }
    }
}

/// Why a single lookup's target was refused (400 `bad-request`, this message).
enum BadLookup: Error, Equatable {
    case encoding, pathCharacter, escapedCharacter, emptyParameter, secondQuestionMark, unknownParameter,
         repeatedParameter, unknownFormat

    var message: String {
        switch self {
        case .encoding: return "the number is not valid percent-encoded UTF-8"
        case .pathCharacter:
            return "the path after /v1/lookup/ must be one number: '/', ';', '&', '=', '#' and spaces are refused"
        case .escapedCharacter:
            return "the number holds an escaped '/', '?', ';', '&', '=', '%' or control character, which no caller ID has"
        case .emptyParameter: return "an empty query parameter; the only one is format=json|text|status"
        case .secondQuestionMark: return "a second '?' in the request target"
        case .unknownParameter: return "an unknown query parameter; the only one is format=json|text|status"
        case .repeatedParameter: return "format= is given more than once"
        case .unknownFormat: return "format must be json, text or status"
        }
    }
}

extension UInt8 {
    /// Whether a number's decoded text may hold this byte: letters, digits, space and the
    /// punctuation of numbers and patterns (`+ - . ( ) # *` and the harmless `_ ~ , ! ' : @ $`),
    /// and UTF-8 beyond ASCII. Not `/ ? ; & = %`, quotes, brackets or control characters.
    var isNumberByte: Bool {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "A")...UInt8(ascii: "Z"), 0x80...0xFF:
            return true
        case UInt8(ascii: " "), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "("),
             UInt8(ascii: ")"), UInt8(ascii: "#"), UInt8(ascii: "*"), UInt8(ascii: "_"), UInt8(ascii: "~"),
             UInt8(ascii: ","), UInt8(ascii: "!"), UInt8(ascii: "'"), UInt8(ascii: ":"), UInt8(ascii: "@"),
             UInt8(ascii: "$"):
            return true
        default:
            return false
        }
    }
}

/// Decodes %XX escapes (a path keeps '+' as '+'); fails on a bad escape, invalid UTF-8, or an
/// escaped byte that `isNumberByte` refuses.
func percentDecoded(_ text: UnsafeBufferPointer<UInt8>) -> Result<String, BadLookup> {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.count)
    var iterator = text.makeIterator()
    while let byte = iterator.next() {
        guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
        guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
            return .failure(.encoding)
        }
        let decoded = high << 4 | low
        guard decoded.isNumberByte else { return .failure(.escapedCharacter) }
        bytes.append(decoded)
    }
    guard let number = String(validating: bytes, as: UTF8.self) else { return .failure(.encoding) }
    return .success(number)
}

private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
}
