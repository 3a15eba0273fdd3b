import Foundation
import Testing
@testable import CallDir
@testable import CallDirReader

private func vcardRows(_ text: String) throws -> [CollectedRow] {
    try withTempDir { dir in try collectRows(try VCardSource(path: try dir.write("list.vcf", text))) }
}

private func vcardError(_ text: String) throws -> CallDirError? {
    try withTempDir { dir in
        let path = try dir.write("list.vcf", text)
        let error = callDirError { _ = try collectRows(try VCardSource(path: path)) }
        #expect(error?.path == path)
        #expect(error?.code == .badInput)
        return error
    }
}

@Suite("Input: vCard")
struct InputVCardTests {
    @Test func severalCardsEveryTelIsARow() throws {
        let text = """
            BEGIN:VCARD\r
            VERSION:3.0\r
            FN:Spam Caller\r
            TEL;TYPE=CELL,VOICE:+41 21 560 12 34\r
            TEL;TYPE=WORK:+41 21 560 99 99\r
            END:VCARD\r
            BEGIN:VCARD\r
            VERSION:4.0\r
            FN:Robocall Inc\r
            TEL;VALUE=uri;TYPE="voice,home":tel:+1-555-555-0100\r
            END:VCARD\r

            """
        #expect(try vcardRows(text) == [
            CollectedRow(4, "+41 21 560 12 34", "Spam Caller"),
            CollectedRow(5, "+41 21 560 99 99", "Spam Caller"),
            CollectedRow(10, "+1-555-555-0100", "Robocall Inc"),
        ])
    }

    @Test func foldedLinesAreUnfolded() throws {
        let text = "BEGIN:VCARD\nVERSION:3.0\nFN:Very Long Na\n me of a Caller\nTEL:+4121\n\t5601234\nEND:VCARD\n"
        #expect(try vcardRows(text) == [CollectedRow(5, "+41215601234", "Very Long Name of a Caller")])
    }

    @Test func groupPrefixesCaseAndTelURIParameters() throws {
        let text = """
            begin:vcard
            version:4.0
            item1.tel;type=cell:tel:+33-1-23-45-67-89;ext=12
            ITEM2.Tel:TEL:+33162000000
            fn:Lower Case
            end:vcard
            """
        #expect(try vcardRows(text) == [
            CollectedRow(3, "+33-1-23-45-67-89", "Lower Case"),
            CollectedRow(4, "+33162000000", "Lower Case"),
        ])
    }

    @Test func escapesInFullNameAndOrganization() throws {
        let text = """
            BEGIN:VCARD
            FN:Smith\\, John\\; Jr.\\\\x\\nline2
            TEL:1
            END:VCARD
            BEGIN:VCARD
            ORG:Acme\\, Inc.;Sales;Floor 2
            TEL:2
            END:VCARD
            BEGIN:VCARD
            FN:
            ORG:Fallback Org
            TEL:3
            END:VCARD
            BEGIN:VCARD
            TEL:4
            END:VCARD
            """
        #expect(try vcardRows(text) == [
            CollectedRow(3, "1", "Smith, John; Jr.\\x\nline2"),
            CollectedRow(7, "2", "Acme, Inc."),      // ORG's first component
            CollectedRow(12, "3", "Fallback Org"),   // empty FN falls back to ORG
            CollectedRow(15, "4", nil),               // neither: no label
        ])
    }

    @Test func fullNameAfterTelStillLabelsIt() throws {
        let text = "BEGIN:VCARD\nTEL:+41215601234\nNOTE:x\nFN:Late Name\nEND:VCARD\n"
        #expect(try vcardRows(text) == [CollectedRow(2, "+41215601234", "Late Name")])
    }

    @Test func cardWithoutTelGivesNoRowsAndOutsideLinesAreIgnored() throws {
        let text = "PRODID:junk before\n\nBEGIN:VCARD\nFN:Nobody\nEND:VCARD\nBEGIN:VCARD\nTEL:5\nEND:VCARD\n"
        #expect(try vcardRows(text) == [CollectedRow(7, "5", nil)])
    }

    @Test func fileEndingInsideACardNamesWhereItBegan() throws {
        let error = try vcardError("BEGIN:VCARD\nTEL:1\nEND:VCARD\nBEGIN:VCARD\nFN:Cut\nTEL:+4121")
        #expect(error?.line == 4)
        #expect(error?.message.contains("ends inside the card") == true)
    }

    @Test func unbalancedBeginAndEndAreErrors() throws {
        let nested = try vcardError("BEGIN:VCARD\nTEL:1\nBEGIN:VCARD\nEND:VCARD\n")
        #expect(nested?.line == 3)
        #expect(nested?.message.contains("began at line 1") == true)
        let stray = try vcardError("BEGIN:VCARD\nEND:VCARD\nEND:VCARD\n")
        #expect(stray?.line == 3)
    }

    @Test func gzipVCardThroughAutoDetection() throws {
        try withTempDir { dir in
            try dir.write("cards.vcf", "\u{FEFF}BEGIN:VCARD\r\nFN:Zipped\r\nTEL:+41215601234\r\nEND:VCARD\r\n")
            let source = try openSource(path: try dir.gzip("cards.vcf"))
            #expect(source is VCardSource)
            #expect(try collectRows(source) == [CollectedRow(3, "+41215601234", "Zipped")])
        }
    }
}
