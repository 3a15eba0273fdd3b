import CallDir
import CallDirFeed
import CallDirReader
import Testing

/// The feed's JSON as a thin layer over the reader's JSON core (`JSONScanner` reads its tokens,
/// `JSONWriter` escapes its strings, `JSONValue` is the tree): RFC 8259 as the lists and batch
/// bodies read it, plus the feed's own rules. This file imports the compiler too: one
/// `JSONValue` (no ambiguity) is what the compiler's reports and the feed's files share.
@Suite("Feed JSON over the one JSON core")
struct FeedJSONTests {
    static func parse(_ text: String) throws -> JSONValue { try FeedJSON.parse(Array(text.utf8), name: "manifest.json") }

    static func refusal(_ text: String) -> String? {
        do { _ = try parse(text); return nil } catch let error as FeedError {
            return error.check == .manifest ? error.message : "wrong check: \(error)"
        } catch { return "not a FeedError: \(error)" }
    }

    @Test("a surrogate pair decodes as lists and batch bodies decode it (RFC 8259 §7)")
    func surrogatePair() throws {
        #expect(try Self.parse(#"{"label":"\uD83D\uDE00 ok"}"#)["label"] == .string("😀 ok"))
    }

    @Test("a number with a leading zero is not JSON: refused, not read as 7")
    func leadingZero() {
        #expect(Self.refusal(#"{"serial":007}"#) != nil)
        #expect(Self.refusal("-") != nil)
    }

    @Test("the feed's own rules stay: duplicate members, fractions, depth, size and trailing bytes refused, with the line")
    func feedRules() {
        #expect(Self.refusal("{\"serial\":1,\n\"serial\":2}")?.contains("member \"serial\" appears twice") == true)
        #expect(Self.refusal("{\n\"serial\":1,\n\"serial\":2}")?.hasPrefix("malformed JSON at line 3") == true)
        #expect(Self.refusal(#"{"serial":1.5}"#)?.contains("only integers") == true)
        #expect(Self.refusal(#"{"serial":1e3}"#)?.contains("only integers") == true)
        #expect(Self.refusal(#"{"serial":99999999999999999999}"#)?.contains("out of range") == true)
        #expect(Self.refusal(String(repeating: "[", count: 17) + String(repeating: "]", count: 17))?.contains("nested deeper than 16") == true)
        #expect(Self.refusal(String(repeating: "[", count: 16) + String(repeating: "]", count: 16)) == nil)
        #expect(Self.refusal(#"{"a":1} x"#)?.contains("after the JSON value") == true)
        #expect(Self.refusal("\"a\nb\"")?.contains("control character") == true)
        #expect(Self.refusal(#"{"a":tru}"#) != nil)
        #expect(Self.refusal(#"{"a" 1}"#) != nil)
        #expect(Self.refusal(#"{1:2}"#)?.contains("member name") == true)
        #expect(Self.refusal("[" + String(repeating: " ", count: FeedJSON.maxBytes) + "]")?.contains("over the limit") == true)
    }

    @Test("written and read back byte for byte, control characters escaped as every JSON answer escapes them")
    func roundTrip() throws {
        let value = JSONValue.object([
            ("text", .string("quote \" backslash \\ tab \t line \n return \r bell \u{7} é 😀")),
            ("n", .int(-42)), ("list", .array([.bool(true), .bool(false), .null, .array([]), .object([])])),
        ])
        let text = value.rendered()
        #expect(text == #"{"text":"quote \" backslash \\ tab \t line \n return \r bell \u0007 é 😀","n":-42,"list":[true,false,null,[],{}]}"#)
        #expect(try Self.parse(text) == value)
        #expect(try Self.parse(value.rendered(pretty: true)) == value)
    }

    @Test("one value type: a report with fractions is read back whole by the reader's default rules, refused by the feed's")
    func oneValueType() throws {
        let report = JSONValue.object([("seconds", .double(0.25)), ("rows", .int(3)), ("ok", .bool(true)), ("path", .string("a\"b"))])
        let text = report.rendered()
        let read = try Array(text.utf8).withUnsafeBytes { try JSONValue.parse(ByteCursor(memory: $0, name: "report.json")) }
        #expect(read == report)
        #expect(read["seconds"] == .double(0.25) && read["rows"] == .int(3))
        #expect(Self.refusal(text)?.contains("only integers") == true)
    }
}
