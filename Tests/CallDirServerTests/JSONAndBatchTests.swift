import CallDir
@testable import CallDirServer
import NIOCore
import Testing
@testable import CallDirReader

@Suite("JSON writer and batch parser")
struct JSONAndBatchTests {
    @Test("strings are escaped like JSONValue", arguments: ["plain", "a\"b", "back\\slash", "tab\tnew\nline\r", "\u{0}\u{1f}", "ünï✓😀"])
    func escaping(text: String) {
        var buffer = ByteBuffer()
        buffer.writeJSONString(text)
        #expect(String(buffer: buffer) == JSONValue.string(text).rendered())
    }

    func parse(_ text: String, limit: Int = 100) -> Result<[String], BatchParser.Failure> {
        BatchParser.parse(ByteBuffer(string: text), limit: limit)
    }

    @Test("JSON arrays: strings with escapes, bare integers, whitespace")
    func jsonArrays() throws {
        #expect(try parse(#" [ "+1 800 555 5555" , 14085555555,"a\"b\\c\/\n\u00e9\ud83d\ude00" ] "#).get()
            == ["+1 800 555 5555", "14085555555", "a\"b\\c/\né😀"])
        #expect(try parse("[]").get() == [])
        #expect(try parse("[-12, 1.5e3]").get() == ["-12", "1.5e3"])
        // A lone surrogate decodes as U+FFFD, as in JSON lists (one reader for both); the
        // normaliser then answers it as an invalid character.
        #expect(try parse(#"["\ud800", "1\ud800"]"#).get() == ["\u{FFFD}", "1\u{FFFD}"])
    }

    @Test("malformed JSON is refused, with where", arguments: [
        "[", "[\"a\"", "[\"a\",]", "[\"a\" \"b\"]", "[true]", "[\"a\"] [", "[\"\\x\"]", "[\"a\nb\"]", "[\"\\u12\"]",
    ])
    func malformed(text: String) {
        guard case .failure(.malformed) = parse(text) else {
            Issue.record("accepted \(text)")
            return
        }
    }

    @Test("text: one number per line, blank lines and CR skipped")
    func lines() throws {
        #expect(try parse("1\r\n\n 2 \n\t\n3").get() == ["1", "2", "3"])
        #expect(try parse("\n\n").get() == [])
    }

    @Test("the limit stops parsing at the first number past it")
    func limit() throws {
        #expect(try parse("1\n2\n3", limit: 3).get().count == 3)
        #expect(parse("1\n2\n3\n4", limit: 3) == .failure(.tooMany(limit: 3)))
        #expect(parse("[1,2,3,4]", limit: 3) == .failure(.tooMany(limit: 3)))
    }
}

extension LookupResult: CustomTestStringConvertible {
    public var testDescription: String { "+\(number)" }
}
