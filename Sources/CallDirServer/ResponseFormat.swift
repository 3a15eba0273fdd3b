import CallDirReader
import NIOCore
import NIOHTTP1

/// The shape of a single lookup's answer, chosen per request: `?format=json|text|status`, else
/// an `Accept: text/plain` header selects `text`, else JSON.
///
/// - `json`: the full answer (today's, and the default).
/// - `text`: a first line telephony clients use as it is: `block`, `identify<TAB>LABEL` or
///   `allow` (Kamailio's `http_client_query` keeps only the first line; Asterisk's `CURL()`
///   returns the body).
/// - `status`: the status code is the verdict, for phones and gateways that read nothing
///   else: 403 block, 200 identify (body as `text`), 204 allow. Errors keep their 4xx/5xx
///   codes, so a client that treats only 403 as "block" fails open.
package enum ResponseFormat: Sendable, Equatable {
    case json, text, status

    /// The shape asked for by a query (the bytes after the target's first `?`): exactly one
    /// `format=json|text|status`. Anything else fails (see `RequestTarget`): an empty query or
    /// parameter (`?`, `?&format=text`, `?format=text&`), a second `?`, an unknown or
    /// percent-encoded name, `format` twice, or another value.
    static func parse(query: UnsafeBufferPointer<UInt8>) -> Result<ResponseFormat, BadLookup> {
        var format: ResponseFormat?
        var start = 0
        while true {
            var end = start
            while end < query.count, query[end] != UInt8(ascii: "&") {
                if query[end] == UInt8(ascii: "?") { return .failure(.secondQuestionMark) }
                end += 1
            }
            let parameter = UnsafeBufferPointer(rebasing: query[start..<end])
            guard !parameter.isEmpty else { return .failure(.emptyParameter) }
            let name: StaticString = "format="
            guard parameter.count >= name.utf8CodeUnitCount,
                  parameter.prefix(name.utf8CodeUnitCount)
                      .elementsEqual(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)) else {
                return .failure(.unknownParameter)
            }
            guard format == nil else { return .failure(.repeatedParameter) }
            let value = UnsafeBufferPointer(rebasing: parameter[name.utf8CodeUnitCount...])
            if value.elementsEqual("text".utf8) {
                format = .text
            } else if value.elementsEqual("json".utf8) {
                format = .json
            } else if value.elementsEqual("status".utf8) {
                format = .status
            } else {
                return .failure(.unknownFormat)
            }
            guard end < query.count else { break }
            start = end + 1
        }
        return .success(format ?? .json)
    }

    /// The shape for a lookup whose query names none: `text` for an `Accept` header starting
    /// with `text/plain` (in any case), else JSON. Compared on bytes: no lowercased copy.
    init(accept headers: HTTPHeaders) {
        guard let accept = headers.first(name: "accept") else { self = .json; return }
        var utf8 = accept.utf8.makeIterator()
        for expected in "text/plain".utf8 {
            guard let byte = utf8.next(),
                  (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 == expected : byte == expected else {
                self = .json
                return
            }
        }
        self = .text
    }

    /// The body of a `text` answer (and of `status` answers that carry one).
    static func textLine(action: LookupAction, label: String?, allocator: ByteBufferAllocator) -> ByteBuffer {
        var body = allocator.buffer(capacity: 16 + (label?.utf8.count ?? 0))
        body.writeString(action.rawValue)
        if let label {
            body.writeInteger(UInt8(ascii: "\t"))
            body.writeString(label)
        }
        body.writeInteger(UInt8(ascii: "\n"))
        return body
    }

    /// The status of a `status` answer.
    static func verdictStatus(action: LookupAction) -> HTTPResponseStatus {
        switch action {
        case .block: return .forbidden
        case .identify: return .ok
        case .allow: return .noContent
        }
    }
}
