import CallDir
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
public enum ResponseFormat: Sendable, Equatable {
    case json, text, status

    /// From the request target's query and the Accept header; nil for an unknown `format=`.
    init?(uri: UnsafeBufferPointer<UInt8>, headers: HTTPHeaders) {
        if let question = uri.firstIndex(of: UInt8(ascii: "?")),
           let value = queryValue(UnsafeBufferPointer(rebasing: uri[(question + 1)...]), name: "format") {
            switch String(decoding: value, as: UTF8.self) {
            case "json": self = .json
            case "text": self = .text
            case "status": self = .status
            default: return nil
            }
            return
        }
        let accept = headers.first(name: "accept")
        self = accept.map { $0.lowercased().hasPrefix("text/plain") } == true ? .text : .json
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

/// The value of `name=` among `&`-separated query parameters (not percent-decoded: the values
/// looked up here are plain words).
private func queryValue(_ query: UnsafeBufferPointer<UInt8>, name: StaticString) -> UnsafeBufferPointer<UInt8>? {
    let key = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
    for parameter in query.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
        guard let equals = parameter.firstIndex(of: UInt8(ascii: "=")),
              parameter[parameter.startIndex..<equals].elementsEqual(key) else { continue }
        return UnsafeBufferPointer(rebasing: query[(equals + 1)..<parameter.endIndex])
    }
    return nil
}
