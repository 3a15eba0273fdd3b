import Foundation
import Testing
@testable import CallDir
@testable import CallDirReader

/// Rows of a text list written to a temporary file.
private func textRows(_ text: String, options: TextListOptions = .init()) throws -> [CollectedRow] {
    try withTempDir { dir in
        try collectRows(try TextListSource(path: try dir.write("list.txt", text), options: options))
    }
}

/// The error reading a text list raises.
private func textError(_ text: String, options: TextListOptions = .init()) throws -> CallDirError? {
    try withTempDir { dir in
        let path = try dir.write("list.txt", text)
        let error = callDirError { _ = try collectRows(try TextListSource(path: path, options: options)) }
        #expect(error?.path == path)
        return error
    }
}

@Suite("Input: text and CSV lists")
struct InputTextListTests {
    @Test func plainLinesKeepLineNumbersAcrossBlanksAndComments() throws {
        let text = "# Swiss spam\n\n+41212130911\n   # indented comment\n  \t \n33162######\n+4121560####\n0041 21 560 12 34"
        #expect(try textRows(text) == [
            CollectedRow(3, "+41212130911"),
            CollectedRow(6, "33162######"),
            CollectedRow(7, "+4121560####"),
            CollectedRow(8, "0041 21 560 12 34"),  // last line without newline; untrimmed
        ])
    }

    @Test func crlfLineEndsAreStripped() throws {
        #expect(try textRows("+41212130911\r\n+41213111285\r\n\r\n") == [
            CollectedRow(1, "+41212130911"), CollectedRow(2, "+41213111285"),
        ])
    }

    @Test func tabSplitsAtTheFirstTab() throws {
        #expect(try textRows("+41212130911\tSpam, calls at night\n+41213111285\t\n5551234\ta\tb\n") == [
            CollectedRow(1, "+41212130911", "Spam, calls at night"),  // the comma is label text
            CollectedRow(2, "+41213111285", ""),                      // an empty label, not no label
            CollectedRow(3, "5551234", "a\tb"),
        ])
    }

    @Test func csvQuotingWithCommasAndDoubledQuotes() throws {
        let text = """
            +1 800 555 0100,"Acme, Inc."
            "+1 (800) 555-0101","The ""Best"" Co",extra,fields
            18005550102,
            "18005550103"
            18005550104, "Spaced, Quoted"
            """
        #expect(try textRows(text) == [
            CollectedRow(1, "+1 800 555 0100", "Acme, Inc."),
            CollectedRow(2, "+1 (800) 555-0101", "The \"Best\" Co"),
            CollectedRow(3, "18005550102", ""),  // an empty label field
            CollectedRow(4, "18005550103", nil),  // no label field
            CollectedRow(5, "18005550104", "Spaced, Quoted"),
        ])
    }

    @Test func headerSelectsColumnsByDefaultNames() throws {
        let text = "Name,Ignored,Phone Number\r\nAcme,x,+18005550100\r\n\"Bob, Jr.\",y,+18005550101\r\nshort\r\n"
        #expect(try textRows(text) == [
            CollectedRow(2, "+18005550100", "Acme"),
            CollectedRow(3, "+18005550101", "Bob, Jr."),
            CollectedRow(4, "", "short"),  // missing number column: empty field, rejected later
        ])
    }

    @Test func ftcStyleSingleColumnHeader() throws {
        #expect(try textRows("pattern\r\n4692576503\r\n2566445079\r\n") == [
            CollectedRow(2, "4692576503"), CollectedRow(3, "2566445079"),
        ])
    }

    @Test func headerAfterCommentsAndWithByteOrderMark() throws {
        let text = "\u{FEFF}# exported\nnumber,label\n+41212130911,Spam\n"
        #expect(try textRows(text) == [CollectedRow(3, "+41212130911", "Spam")])
        #expect(try textRows("\u{FEFF}+41212130911\n") == [CollectedRow(1, "+41212130911")])
    }

    @Test func tabSeparatedHeader() throws {
        let text = "caller\ttel\nAcme, Inc.\t+18005550100\n"
        #expect(try textRows(text) == [CollectedRow(2, "+18005550100", "Acme, Inc.")])
    }

    @Test func explicitColumnsOverrideDefaults() throws {
        let text = "number,label,Company\n+18005550100,ignored,Acme\n"
        let options = TextListOptions(numberColumn: " NUMBER ", labelColumn: "company")
        #expect(try textRows(text, options: options) == [CollectedRow(2, "+18005550100", "Acme")])
    }

    @Test func requestedColumnMarksAHeaderWhoseFirstNameHasADigit() throws {
        let text = "phone1,phone2,who\n+18005550100,+18005550101,Acme\n"
        #expect(try textRows(text, options: .init(numberColumn: "phone2", labelColumn: "who")) ==
                [CollectedRow(2, "+18005550101", "Acme")])
        // Without the request, the same first line is data.
        #expect(try textRows(text).first == CollectedRow(1, "phone1", "phone2"))
    }

    @Test func headerWithoutNumberColumnListsTheColumns() throws {
        let error = try textError("when,who\n2024-01-01,Acme\n")
        #expect(error?.code == .badInput)
        #expect(error?.line == 1)
        #expect(error?.message.contains("no number column (columns: 'when', 'who')") == true,
                "\(String(describing: error))")
    }

    @Test func missingRequestedColumnIsAnError() throws {
        let error = try textError("number,label\n1,a\n", options: .init(labelColumn: "company"))
        #expect(error?.code == .badInput)
        #expect(error?.message.contains("no label column 'company' (columns: 'number', 'label')") == true)
        let noHeader = try textError("+18005550100,Acme\n", options: .init(numberColumn: "number"))
        #expect(noHeader?.line == 1)
        #expect(noHeader?.message.contains("has no header line naming it") == true)
    }

    @Test func multiLineFieldIsAnErrorNamingTheLine() throws {
        let error = try textError("+18005550100,Acme\n+18005550101,\"Two\nlines\"\n")
        #expect(error?.code == .badInput)
        #expect(error?.line == 2)
        #expect(error?.message.hasPrefix("multi-line CSV fields are not supported") == true)
        let inHeader = try textError("\"number\n")
        #expect(inHeader?.line == 1)
    }

    @Test func overlongLineIsAnErrorNamingTheLine() throws {
        let long = String(repeating: "9", count: LineReader.maxLineLength + 10)
        for text in ["+41212130911\n\(long)\n+41213111285\n", "+41212130911\n\(long)"] {
            let error = try textError(text)
            #expect(error?.code == .badInput)
            #expect(error?.line == 2)
            #expect(error?.message.hasPrefix("line longer than 1 MiB") == true)
        }
        // Exactly at the limit is still a line.
        let atLimit = String(repeating: "8", count: LineReader.maxLineLength)
        let rows = try textRows("1\n\(atLimit)\r\n2\n")
        #expect(rows.map(\.number.count) == [1, LineReader.maxLineLength, 1])
    }

    @Test func manyLinesAcrossBufferRefills() throws {
        // 300k lines (~4 MB) cross the 2 MiB line buffer several times.
        let text = (0..<300_000).map { "+4121\($0 + 1_000_000)\n" }.joined()
        var count = 0
        var lastNumber = ""
        try withTempDir { dir in
            let source = try TextListSource(path: try dir.write("big.txt", text))
            try source.forEachRow { row in
                count += 1
                #expect(row.line == count)
                if count == 300_000 { lastNumber = String(decoding: row.number, as: UTF8.self) }
            }
        }
        #expect(count == 300_000)
        #expect(lastNumber == "+41211299999")
    }
}
