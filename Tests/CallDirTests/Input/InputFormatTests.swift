import Foundation
import Testing
@testable import CallDir

private func detect(_ text: String) throws -> InputFormat {
    let bytes = Array(text.utf8)
    return try bytes.withUnsafeBytes { try detectFormat($0, name: "x") }
}

@Suite("Input: format detection")
struct InputFormatTests {
    @Test func detectionRules() throws {
        #expect(try detect("BEGIN:VCARD\r\nVERSION:3.0") == .vcard)
        #expect(try detect("\u{FEFF}\r\n  begin:vcard") == .vcard)
        #expect(try detect(" \n[{\"pattern\": \"1\"}]") == .json)
        #expect(try detect("{\"numbers\": []}") == .json)
        #expect(try detect("<?xml version=\"1.0\"?><plist>") == .plist)
        #expect(try detect("<!DOCTYPE plist PUBLIC \"\">") == .plist)
        #expect(try detect("\t<plist version=\"1.0\">") == .plist)
        #expect(try detect("+41215601234\n") == .text)
        #expect(try detect("number,label\n") == .text)
        #expect(try detect("# BEGIN:VCARD in a comment\n") == .text)
        #expect(try detect("BEGIN:VCAR") == .text)
        #expect(try detect("") == .text)
        let error = callDirError { _ = try detect("bplist00") }
        #expect(error?.code == .badInput)
        #expect(error?.path == "x")
    }

    @Test func openSourcePicksTheParserForEachFormat() throws {
        try withTempDir { dir in
            let files: [(String, String, any EntrySource.Type, CollectedRow)] = [
                ("a.txt", "+41215601234\tSpam\n", TextListSource.self, CollectedRow(1, "+41215601234", "Spam")),
                ("b.vcf", "BEGIN:VCARD\nFN:V\nTEL:1\nEND:VCARD\n", VCardSource.self, CollectedRow(3, "1", "V")),
                ("c.json", "[{\"pattern\": \"2\", \"name\": \"J\"}]", JSONListSource.self, CollectedRow(1, "2", "J")),
                ("d.plist", "<?xml version=\"1.0\"?>\n<plist><array><dict><key>number</key><string>3</string>"
                    + "</dict></array></plist>", PlistListSource.self, CollectedRow(2, "3", nil)),
            ]
            for (name, text, type, row) in files {
                try dir.write(name, text)
                for path in [dir.path(name), try dir.gzip(name)] {
                    let source = try openSource(path: path)
                    #expect(Swift.type(of: source) == type, "\(path)")
                    #expect(source.name == path)
                    #expect(try collectRows(source) == [row], "\(path)")
                }
            }
        }
    }

    @Test func explicitFormatOverridesDetection() throws {
        try withTempDir { dir in
            // Detection would say JSON; as text, each line is a row.
            let path = try dir.write("odd.txt", "[1] not json\n+41215601234\n")
            let source = try openSource(path: path, format: .text)
            #expect(source is TextListSource)
            #expect(try collectRows(source) == [CollectedRow(1, "[1] not json"), CollectedRow(2, "+41215601234")])
            let options = TextListOptions(numberColumn: "tel")
            let csv = try openSource(path: try dir.write("c.csv", "name,tel\nA,1\n"), options: options)
            #expect(try collectRows(csv) == [CollectedRow(2, "1", "A")])
        }
    }

    @Test func detectionThroughAPipeReplaysThePeekedBytes() throws {
        try withTempDir { dir in
            // Longer than the detection window and the pipe's chunks, gzip-compressed.
            let cards = (0..<2_000).map { "BEGIN:VCARD\nFN:Caller \($0)\nTEL:+4121\($0 + 5_600_000)\nEND:VCARD\n" }
            try dir.write("cards.vcf", cards.joined())
            try dir.gzip("cards.vcf")
            let fd = pipeFeeding(try dir.read("cards.vcf.gz"))
            defer { close(fd) }
            let source = try openSource(descriptor: fd, name: "<stdin>")
            #expect(source is VCardSource)
            #expect(source.name == "<stdin>")
            let rows = try collectRows(source)
            #expect(rows.count == 2_000)
            #expect(rows.first == CollectedRow(3, "+41215600000", "Caller 0"))
            #expect(rows.last == CollectedRow(7_999, "+41215601999", "Caller 1999"))
        }
    }

    @Test func missingFileFailsAtOpen() throws {
        let error = callDirError { _ = try openSource(path: "/nonexistent/calldir/list.txt") }
        #expect(error?.code == .io)
        #expect(error?.path == "/nonexistent/calldir/list.txt")
    }

    @Test func formatNamesAreStable() {
        #expect(InputFormat.allCases.map(\.rawValue) == ["auto", "text", "vcard", "json", "plist"])
    }
}
