import CallDirReader
import CallDirSimulator
import Foundation
import Testing
import TestSupport

@Suite("Personal layer")
struct PersonalLayerTests {
    static let france = try! NumberNormalizer(country: 33)

    @Test("the text format reads national numbers, patterns, ranges, expiries and labels, and writes back the same layer")
    func roundTrip() throws {
        let text = """
        calldir-personal 1
        # the dentist's switchboard, for two hours
        allow 01 62 00 00 42 ; until 1764327600
        allow +33 1 62 00 01 ##

        block +33 6 12 34 56 78
        block +33612340000 - +33612340099
        label 01 62 00 00 50 ; Dentist
        """
        let layer = try PersonalLayer(parsing: text, normalizer: Self.france)
        #expect(layer.allowed == [.init(NumberRange(first: 33_162_000_042, last: 33_162_000_042), expiry: 1_764_327_600),
                                  .init(NumberRange(first: 33_162_000_100, last: 33_162_000_199))])
        #expect(layer.blocked == [NumberRange(first: 33_612_345_678, last: 33_612_345_678),
                                  NumberRange(first: 33_612_340_000, last: 33_612_340_099)])
        #expect(layer.labels == [.init(NumberRange(first: 33_162_000_050, last: 33_162_000_050), text: "Dentist")])
        #expect(try PersonalLayer(parsing: layer.text, normalizer: Self.france) == layer)
        #expect(try PersonalLayer(parsing: layer.text, normalizer: NumberNormalizer()) == layer)  // written in E.164
    }

    @Test("bad rules are refused with their line number", arguments: [
        ("calldir-personal 2\n", 1),
        ("calldir-personal 1\nallow +33162000042\nforbid +33162000042\n", 3),
        ("calldir-personal 1\n\nblock +33 1 6a\n", 3),
        ("calldir-personal 1\nallow +33162000042 ; until tomorrow\n", 2),
        ("calldir-personal 1\nlabel +33162000042\n", 2),
        ("calldir-personal 1\nblock +33162000042 ; Spam\n", 2),
        ("calldir-personal 1\nallow +33 1 62 ## 1#\n", 2),
        ("calldir-personal 1\nlabel +331620000## ; A\n# mine\nlabel +33162000042 ; B\n", 4),
    ])
    func badLines(text: String, line: Int) {
        do {
            _ = try PersonalLayer(parsing: text, normalizer: Self.france, path: "p.txt")
            Issue.record("accepted \(text.debugDescription)")
        } catch let error as CallDirError {
            #expect(error.line == line, "\(error)")
            #expect(error.code == .badInput)
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test("the shared folder keeps the layer atomically beside the index; no file is an empty layer")
    func sharedFolder() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let shared = SharedFolder(path: folder.path)
        #expect(try shared.readPersonalLayer(normalizer: Self.france) == PersonalLayer())
        let layer = PersonalLayer(allowed: [.init(NumberRange(first: 33_162_000_042, last: 33_162_000_042), expiry: 9)],
                                  labels: [.init(NumberRange(first: 33_162_000_050, last: 33_162_000_059), text: "Shop")])
        try shared.writePersonalLayer(layer)
        #expect(try shared.readPersonalLayer(normalizer: Self.france) == layer)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["personal.txt"])  // no temporary left
    }

    @Test("vCard contacts: every TEL (grouped, typed, tel: URIs, folded), normalised with the phone's region, once each")
    func vCardContacts() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let path = folder.write("contacts.vcf", """
        BEGIN:VCARD\r
        VERSION:3.0\r
        FN:Dentist\r
        TEL;TYPE=WORK,VOICE:01 62 00 00 42\r
        item1.tel:+33 6 12 34\r
          56 78\r
        NOTE:TEL:0100000000\r
        END:VCARD\r
        BEGIN:VCARD\r
        VERSION:4.0\r
        TEL;VALUE=uri:tel:+41-21-560-00-00;ext=5\r
        TEL:0162000042\r
        TEL:112\r
        END:VCARD\r
        """)
        var skipped = 0
        let numbers = try VCardContacts(path: path).numbers(normalizer: Self.france, skipped: &skipped)
        #expect(numbers == [33_162_000_042, 33_612_345_678, 41_215_600_000])
        #expect(skipped == 1)  // 112: no caller ID to match
    }
}
