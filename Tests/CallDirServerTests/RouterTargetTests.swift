import CallDir
import CallDirLookup
@testable import CallDirServer
import Foundation
import NIOCore
import NIOHTTP1
@testable import CallDirReader
import Testing

/// A single lookup's request target is answered only when it is understood completely (issue
/// 29): a PBX builds it from a caller-controlled SIP user part, so `14692576503?x` must never
/// turn into a lookup of 14692576503 whose answer the PBX cannot read (JSON instead of `text`),
/// nor into any other verdict. Every malformed form is a 400 `bad-request` whose first word is
/// `error`, in the shape the query asked for when the query itself was understood.
@Suite("Router: request targets")
struct RouterTargetTests {
    let scratch = TempFolder()
    let router: Router

    init() throws {
        router = try countryOneRouter(index: try sampleIndex(scratch), policy: CallerIDPolicy(withheld: .block, invalid: .block))
    }

    func answer(_ uri: String, method: HTTPMethod = .GET, headers: HTTPHeaders = HTTPHeaders()) -> (Int, String) {
        let response = router.respond(method: method, uri: uri, body: nil, headers: headers)
        return (Int(response.status.code), String(buffer: response.body))
    }

    /// 18005555555 is blocked in the sample index: each form is a blocked number with a suffix.
    static let malformedQueries: [(String, BadLookup)] = [
        ("/v1/lookup/18005555555?x?format=text", .secondQuestionMark),   // the bypass
        ("/v1/lookup/18005555555?format=text?x", .secondQuestionMark),
        ("/v1/lookup/18005555555??format=text", .secondQuestionMark),
        ("/v1/lookup/18005555555?x", .unknownParameter),
        ("/v1/lookup/18005555555?x=1&format=text", .unknownParameter),
        ("/v1/lookup/18005555555?format=text&x=1", .unknownParameter),
        ("/v1/lookup/18005555555?format", .unknownParameter),
        ("/v1/lookup/18005555555?FORMAT=text", .unknownParameter),
        ("/v1/lookup/18005555555?form%61t=text", .unknownParameter),
        ("/v1/lookup/18005555555?format=text;x=1", .unknownFormat),
        ("/v1/lookup/18005555555?;format=text", .unknownParameter),
        ("/v1/lookup/18005555555?", .emptyParameter),
        ("/v1/lookup/18005555555?&format=text", .emptyParameter),
        ("/v1/lookup/18005555555?format=text&", .emptyParameter),
        ("/v1/lookup/18005555555?format=text&&format=text", .emptyParameter),
        ("/v1/lookup/18005555555?format=text&format=text", .repeatedParameter),
        ("/v1/lookup/18005555555?format=json&format=text", .repeatedParameter),
        ("/v1/lookup/18005555555?format=", .unknownFormat),
        ("/v1/lookup/18005555555?format=xml", .unknownFormat),
        ("/v1/lookup/18005555555?format=te%78t", .unknownFormat),
        ("/v1/lookup/18005555555?format=text#x", .unknownFormat),
        ("/v1/lookup/18005555555?format=TEXT", .unknownFormat),
    ]

    @Test("a query not understood completely: 400 bad-request in JSON (or text for Accept: text/plain)")
    func malformedQueries() throws {
        for (uri, why) in Self.malformedQueries {
            let (status, body) = answer(uri)
            #expect(status == 400, "\(uri)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: String], "\(uri)")
            #expect(json == ["error": "bad-request", "message": why.message], "\(uri)")
            #expect(answer(uri, headers: ["Accept": "text/plain"]) == (400, "error\tbad-request: \(why.message)\n"), "\(uri)")
            #expect(answer(uri, method: .HEAD).0 == 400, "\(uri)")
            #expect(answer(uri, method: .POST).0 == 405, "\(uri)")
        }
    }

    /// Characters after the number: raw, or percent-encoded so that they decode to one.
    static let malformedNumbers: [(String, BadLookup)] = [
        ("18005555555/x", .pathCharacter),
        ("18005555555/", .pathCharacter),
        ("/18005555555", .pathCharacter),
        ("18005555555;x", .pathCharacter),
        ("18005555555;user=phone", .pathCharacter),
        ("18005555555&format=json", .pathCharacter),
        ("18005555555=", .pathCharacter),
        ("18005555555#x", .pathCharacter),
        ("18005555555\"", .pathCharacter),
        ("18005555555<", .pathCharacter),
        ("18005555555\\x", .pathCharacter),
        ("18005555555%3Fx", .escapedCharacter),            // the cfg's %3F: '?' once decoded
        ("18005555555%3fformat%3Djson", .escapedCharacter),
        ("18005555555%2Fx", .escapedCharacter),
        ("18005555555%2f..%2f..", .escapedCharacter),
        ("18005555555%3Bx", .escapedCharacter),
        ("18005555555%26format%3Djson", .escapedCharacter),
        ("18005555555%3D", .escapedCharacter),
        ("18005555555%253F", .escapedCharacter),           // double encoding: decodes to "%3F"
        ("18005555555%00", .escapedCharacter),
        ("18005555555%0A", .escapedCharacter),
        ("18005555555%0D%0Ablock", .escapedCharacter),
        ("18005555555%09block", .escapedCharacter),
        ("18005555555%7F", .escapedCharacter),
        ("18005555555%zz", .encoding),
        ("18005555555%4", .encoding),
        ("18005555555%", .encoding),
        ("18005555555%C3%28", .encoding),                   // not UTF-8
    ]

    @Test("a number with path characters after it, raw or escaped: 400 in the shape the query asked for")
    func malformedNumbers() throws {
        for (number, why) in Self.malformedNumbers {
            let uri = "/v1/lookup/" + number
            #expect(answer(uri + "?format=text") == (400, "error\tbad-request: \(why.message)\n"), "\(uri)")
            #expect(answer(uri + "?format=status") == (400, "error\tbad-request: \(why.message)\n"), "\(uri)")
            let (status, body) = answer(uri)
            #expect(status == 400, "\(uri)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: String], "\(uri)")
            #expect(json == ["error": "bad-request", "message": why.message], "\(uri)")
        }
        // A malformed query wins over a malformed number; its answer cannot trust format=.
        #expect(answer("/v1/lookup/1/2?x").1.hasPrefix("{\"error\":\"bad-request\""))
    }

    @Test("what a number may hold is still answered: formatted numbers, patterns, withheld words, non-ASCII")
    func wellFormed() {
        #expect(answer("/v1/lookup/18005555555?format=text") == (200, "block\n"))
        #expect(answer("/v1/lookup/+1-800-555-5555?format=text") == (200, "block\n"))
        #expect(answer("/v1/lookup/%2B1%20(800)%20555.5555?format=text") == (200, "block\n"))
        #expect(answer("/v1/lookup/(800)555-5555?format=text") == (200, "block\n"))   // --country 1
        #expect(answer("/v1/lookup/8005555555?format=text") == (200, "block\n"))
        #expect(answer("/v1/lookup/18775555555?format=text") == (200, "identify\tTelemarketer\n"))
        #expect(answer("/v1/lookup/12125550000?format=json").1.contains("\"action\":\"allow\""))
        #expect(answer("/v1/lookup/12125550000", headers: ["Accept": "TEXT/Plain; charset=utf-8"]) == (200, "allow\n"))
        #expect(answer("/v1/lookup/12125550000", headers: ["Accept": "text/html"]).1.hasPrefix("{"))
        #expect(answer("/v1/lookup/anonymous?format=text") == (200, "block\n"))         // --anonymous block
        #expect(answer("/v1/lookup/abc*_~,!':@$?format=text") == (200, "block\n"))      // invalid, not malformed
        #expect(answer("/v1/lookup/%EF%BC%91?format=text") == (200, "block\n"))         // U+FF11, invalid
    }
}
