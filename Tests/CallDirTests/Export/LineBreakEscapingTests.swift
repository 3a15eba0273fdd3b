import Foundation
import Testing
@testable import CallDir

/// Issue 39 item 3: every export escapes what its format needs, whatever the index holds. A
/// reader never hands out a label with a line break now, but the escaping does not rely on it:
/// CSV quoted it ("CSV quotes a comma but not a newline, so a forged label adds a CSV row"), and
/// the line-based vCard and text protobuf escape it. Read back by python3's csv module.
@Suite("Line breaks in exported labels")
struct LineBreakEscapingTests {
    @Test("a CSV field with a line break is quoted and reads back as one field of one row")
    func csvLineBreak() throws {
        for label in ["Spam\nrisk", "Spam\r\nrisk", "\rSpam"] {
            let field = Escaping.csvField(label)
            #expect(field.hasPrefix("\"") && field.hasSuffix("\""), "\(field.debugDescription)")
            let script = "import csv, io, sys; rows = list(csv.reader(io.StringIO(sys.stdin.read(), newline=''))); "
                + "assert len(rows) == 1 and rows[0] == ['18005550000', \(String(reflecting: label))], rows"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", script]
            let input = Pipe()
            process.standardInput = input
            try process.run()
            try input.fileHandleForWriting.write(contentsOf: Data("18005550000,\(field)\n".utf8))
            try input.fileHandleForWriting.close()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(label.debugDescription) as \(field.debugDescription)")
        }
    }

    @Test("vCard and text-protobuf values never hold a raw line break")
    func lineFormats() {
        #expect(Escaping.vCardText("Spam\r\nrisk") == "Spam\\nrisk")
        #expect(Escaping.protobufTextQuoted("Spam\nrisk\r") == "\"Spam\\nrisk\\r\"")
    }
}
