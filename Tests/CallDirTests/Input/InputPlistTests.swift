import Foundation
import Testing
@testable import CallDir
@testable import CallDirReader

private func plistRows(_ text: String) throws -> [CollectedRow] {
    try withTempDir { dir in try collectRows(try PlistListSource(path: try dir.write("list.plist", text))) }
}

private func plistError(_ text: String) throws -> CallDirError? {
    try withTempDir { dir in
        let path = try dir.write("list.plist", text)
        let error = callDirError { _ = try collectRows(try PlistListSource(path: path)) }
        #expect(error?.path == path)
        #expect(error?.code == .badInput)
        return error
    }
}

private let header = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    """

@Suite("Input: XML plists")
struct InputPlistTests {
    @Test func begoneDictsWithIgnoredKeys() throws {
        let text = header + """

            <array>
            \t<dict>
            \t\t<key>addNational</key>
            \t\t<string>true</string>
            \t\t<key>category</key>
            \t\t<string>0</string>
            \t\t<key>number</key>
            \t\t<string>+4121560####</string>
            \t\t<key>title</key>
            \t\t<string>Spam (local.ch++)</string>
            \t</dict>
            \t<dict><key>title</key><string>Integer</string><key>number</key><integer>41215601234</integer></dict>
            \t<dict><key>number</key><string>+41 21 000</string><key>flag</key><true/><key>nested</key>
            \t\t<dict><key>number</key><string>ignored</string><key>list</key><array><string>x</string></array></dict>
            \t\t<key>empty</key><array/><key>title</key><string/></dict>
            \t<dict/>
            </array>
            </plist>

            """
        #expect(try plistRows(text) == [
            CollectedRow(5, "+4121560####", "Spam (local.ch++)"),
            CollectedRow(15, "41215601234", "Integer"),
            CollectedRow(16, "+41 21 000", nil),  // nested dict skipped; empty title is no label
            CollectedRow(19, "", nil),
        ])
    }

    @Test func entitiesCDATAAndComments() throws {
        let text = """
            <plist><array><!-- a comment with <dict> inside -->
            <dict><key>number</key><string>&#43;41&#x32;1 &amp; co</string>
            <key>title</key><string>&lt;A&gt; &quot;B&quot; &apos;C&apos; caf&#xE9; <![CDATA[<raw> & ]]]>!<!-- x --></string></dict>
            <string>+33162000000</string>
            </array></plist>
            """
        #expect(try plistRows(text) == [
            CollectedRow(2, "+4121 & co", "<A> \"B\" 'C' café <raw> & ]!"),
            CollectedRow(4, "+33162000000"),
        ])
    }

    @Test func bareArrayRootAndEmptyArray() throws {
        #expect(try plistRows("<array><dict><key>number</key><string>1</string></dict></array>") ==
                [CollectedRow(1, "1")])
        #expect(try plistRows(header + "<array/></plist>").isEmpty)
    }

    @Test func binaryPlistIsRefusedWithTheFix() throws {
        for detect in [false, true] {
            try withTempDir { dir in
                let path = try dir.write("list.plist", Data("bplist00\u{0}\u{1}".utf8))
                let error = callDirError {
                    _ = try collectRows(detect ? try openSource(path: path) : try PlistListSource(path: path))
                }
                #expect(error?.code == .badInput)
                #expect(error?.path == path)
                #expect(error?.message.contains("binary plists are not supported; convert with `plutil -convert xml1")
                        == true)
            }
        }
    }

    @Test func malformedInputNamesTheLine() throws {
        let cases: [(String, Int, String)] = [
            ("<plist><dict></dict></plist>", 1, "expected <array> (the list must be an array of dicts) but found <dict>"),
            ("<plist><array>\n<dict>\n<key>number</key>\n<string>1</string>\n", 2,
             "the file ends inside the <dict> that begins here"),
            ("<array><dict><key>number</key><string>1</strin></dict></array>", 1,
             "expected </string> for the element at line 1 but found </strin>"),
            ("<array><dict><string>1</string></dict></array>", 1, "expected <key> or </dict> but found <string>"),
            ("<array><dict><key>number</key></dict></array>", 1, "expected a value after <key> but found </dict>"),
            ("<array>\n<dict><key>number</key><string>a &nbsp; b</string></dict></array>", 2,
             "unknown entity '&nbsp;'"),
            ("<array><dict><key>n</key><string>&#xD800;</string></dict></array>", 1, "unknown entity '&#xD800;'"),
            ("<array><integer>1</integer></array><array>", 1, "unexpected <array> after the end of the plist"),
            ("<plist><array></array><dict/>", 1, "expected </plist> but found <dict/>"),
            ("<array><key>x</key></array>", 1, "expected <dict> in the top-level array but found <key>"),
            ("<array><dict><key>number</key><string>1", 1, "the file ends inside a value"),
            ("<array><!-- never closed", 1, "the file ends inside a comment"),
            ("", 1, "expected <plist> or <array> but found the end of the file"),
        ]
        for (text, line, message) in cases {
            let error = try plistError(text)
            #expect(error?.line == line, "\(text)")
            #expect(error?.message.contains(message) == true, "\(text) -> \(String(describing: error))")
        }
    }
}
