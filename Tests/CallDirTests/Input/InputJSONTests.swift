import Foundation
import Testing
@testable import CallDir
@testable import CallDirReader

private func jsonRows(_ text: String) throws -> [CollectedRow] {
    try withTempDir { dir in try collectRows(try JSONListSource(path: try dir.write("list.json", text))) }
}

private func jsonError(_ text: String) throws -> CallDirError? {
    try withTempDir { dir in
        let path = try dir.write("list.json", text)
        let error = callDirError {
            _ = try collectRows(JSONListSource(origin: try InputOrigin(path: path), actions: (.block, true)))
        }
        #expect(error?.path == path)
        #expect(error?.code == .badInput)
        return error
    }
}

@Suite("Input: JSON lists")
struct InputJSONTests {
    @Test func saracrocheObjectsPreferPatternThenRangeThenNumber() throws {
        let text = """
            [
              {"operator_name": "ARCEP", "pattern": "33162######", "start": "33162000000", "end": "33162999999"},
              {
                "operator_name": "Twilio",
                "start": "33270000000",
                "end": 33270999999
              },
              {"number": 41215601234, "label": "Integer number"},
              {"phone": "+1 800 555 0100", "title": "Phone key", "name": ""},
              {"label": "no number"}
            ]
            """
        #expect(try jsonRows(text) == [
            CollectedRow(2, "33162######", "ARCEP"),
            CollectedRow(3, "33270000000-33270999999", "Twilio"),
            CollectedRow(8, "41215601234", "Integer number"),
            CollectedRow(9, "+1 800 555 0100", "Phone key"),  // empty "name" is passed over
            CollectedRow(10, "", "no number"),
        ])
    }

    @Test func labelPrecedenceAndSkippedValues() throws {
        let text = """
            [{"title": "t", "operator_name": "o", "name": "n", "label": "l", "pattern": "1"},
             {"meta": {"nested": [1, 2.5e-3, {"deep": [true, false, null]}], "s": "x\\"y"},
              "pattern": null, "number": "2", "extra": [], "o": {}, "title": "T"},
             "33163######", -12]
            """
        #expect(try jsonRows(text) == [
            CollectedRow(1, "1", "l"),
            CollectedRow(2, "2", "T"),
            CollectedRow(4, "33163######"),
            CollectedRow(4, "-12"),
        ])
    }

    @Test func stringEscapesIncludingSurrogatePairs() throws {
        let text = #"[{"pattern": "\u0033\u0033\/1", "label": "Caf\u00e9 \ud83d\udcde \"q\" \\ \n\t end \ud800x"}]"#
        #expect(try jsonRows(text) == [CollectedRow(1, "33/1", "Café 📞 \"q\" \\ \n\t end \u{FFFD}x")])
    }

    @Test func rawUTF8AndByteOrderMarkAndEmptyArray() throws {
        #expect(try jsonRows("\u{FEFF} [ {\"pattern\":\"1\",\"name\":\"Zürich ☎\"} ] \n") ==
                [CollectedRow(1, "1", "Zürich ☎")])
        #expect(try jsonRows("[]").isEmpty)
        #expect(try jsonRows("[{}]") == [CollectedRow(1, "", nil)])
    }

    @Test func malformedInputNamesTheLineAndWhatWasExpected() throws {
        let cases: [(String, Int, String)] = [
            ("{\"pattern\": \"1\"}", 1, "the top-level object has no \"patterns\" array"),
            ("\"x\"", 1, "expected '[' (the list must be an array of objects) but found '\"'"),
            ("{\"patterns\": [{\"pattern\": \"1\", \"action\": \"allow\"}]}", 1, "action 'allow' is neither block nor identify"),
            ("[\n{\"pattern\": \"1\"}\n{\"pattern\": \"2\"}]", 3, "expected ',' or ']' after an array element but found '{'"),
            ("[{\"pattern\" \"1\"}]", 1, "expected ':' after the key but found '\"'"),
            ("[{pattern: 1}]", 1, "expected a string key but found 'p'"),
            ("[{\"pattern\": \"1\",}]", 1, "expected a string key but found '}'"),
            ("[{\"a\": tru}]", 1, "expected 'true'"),
            ("[{\"pattern\": 01}]", 1, "expected ',' or '}' in an object but found '1'"),
            ("[{\"pattern\": -}]", 1, "expected a digit after the start of a number but found '}'"),
            ("[{\"pattern\": \"1\n\"}]", 1, "control character byte 0xA inside a string"),
            ("[{\"pattern\": \"\\x\"}]", 1, "invalid escape \\x"),
            ("[{\"pattern\": \"\\u12G4\"}]", 1, "expected four hex digits after \\u but found 'G'"),
            ("[\n\n{\"pattern\": \"abc", 3, "unterminated string"),
            ("[{\"pattern\": \"1\"}", 1, "expected ',' or ']' after an array element but found the end of the file"),
            ("[{\"pattern\": \"1\"}] x", 1, "unexpected 'x' after the end of the top-level array"),
            ("[null]", 1, "expected an object in the top-level array but found 'n'"),
        ]
        for (text, line, message) in cases {
            let error = try jsonError(text)
            #expect(error?.line == line, "\(text)")
            #expect(error?.message.contains(message) == true, "\(text) -> \(String(describing: error))")
        }
    }

    @Test func deepNestingIsRefusedNotACrash() throws {
        let deep = "[{\"x\": " + String(repeating: "[", count: 10_000) + "}]"
        let error = try jsonError(deep)
        #expect(error?.message.contains("nested deeper than 512 levels") == true)
    }

    @Test func valuesSpanningReadBuffersAndGzip() throws {
        // More than the cursor's 256 KiB buffer, so tokens straddle refills; gzip on top.
        let objects = (0..<20_000).map { "{\"pattern\": \"3316\($0 + 100_000)\", \"operator_name\": \"Op \\u00e9\($0)\"}" }
        let text = "[\n" + objects.joined(separator: ",\n") + "\n]\n"
        try withTempDir { dir in
            try dir.write("big.json", text)
            let source = try openSource(path: try dir.gzip("big.json"))
            #expect(source is JSONListSource)
            let rows = try collectRows(source)
            #expect(rows.count == 20_000)
            #expect(rows[19_999] == CollectedRow(20_001, "3316119999", "Op é19999"))
        }
    }
}
