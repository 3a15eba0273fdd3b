import CallDirReader
import Foundation
import Testing
import TestSupport

/// Emergency numbers (`EmergencyNumbers`, generated from libphonenumber's short-number
/// metadata) against libphonenumber's own verdicts (`is_emergency_number`, per region), which
/// scripts/gen-short-numbers.py writes to `Fixtures/emergency-examples.tsv`.
@Suite("Emergency numbers from libphonenumber's short-number metadata")
struct EmergencyNumbersTests {
    /// Each emergency number of some region, and the regions where libphonenumber says it is one.
    static let verdicts: [String: [String]] = {
        let path = packageRoot.appendingPathComponent("Tests/CallDirTests/Fixtures/emergency-examples.tsv").path
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.reduce(into: [:]) { table, line in
            let f = line.split(separator: "\t")
            table[String(f[0])] = f[1].split(separator: " ").map(String.init)
        }
    }()

    @Test("every calling code answers as libphonenumber does for its regions; no region: any region's")
    func matchesReference() {
        #expect(Self.verdicts.count > 200)
        #expect(EmergencyNumbers.metadataVersion == CountryTable.metadataVersion)
        let codes = (1..<1000).filter(CountryTable.exists)
        for (number, regions) in Self.verdicts {
            #expect(EmergencyNumbers.contains(number, country: nil), "\(number)")
            #expect(EmergencyNumbers.regions(of: number).sorted() == regions.sorted(), "\(number)")
            let withCode = Set(regions.compactMap(CountryTable.callingCode(forRegion:)))
            for code in codes where EmergencyNumbers.contains(number, country: code) != withCode.contains(code) {
                Issue.record("\(number) with --country \(code): libphonenumber says \(withCode.contains(code)) (\(regions))")
            }
        }
        // Every other string of 2 or 3 digits is an emergency number nowhere.
        for length in 2...3 {
            for n in 0..<Int(pow(10, Double(length))) {
                let digits = String(repeating: "0", count: length - String(n).count) + String(n)
                #expect(EmergencyNumbers.contains(digits, country: nil) == (Self.verdicts[digits] != nil), "\(digits)")
            }
        }
    }

    @Test("fields name an emergency number with phone punctuation, tel: and +CC; nothing else does",
          arguments: [
              (1, "911", "911"), (1, "(911)", "911"), (1, " tel:9-1-1 ", "911"), (1, "999", "999"),  // Antigua is +1
              (44, "999", "999"), (44, "112", "112"), (44, "911", nil), (61, "000", "000"), (1, "000", nil),
              (49, "1\u{A0}1\u{A0}2", "112"), (49, "+44 999", "999"), (49, "+1 911", "911"), (49, "+49 999", nil),
              (33, "15", "15"), (33, "911", nil), (1, "911#", "911"), (1, "9111", nil), (1, "+911", nil),
              (1, "911 ext 2", nil), (1, "911/x2", "911"), (27, "10111", "10111"), (27, "+27 10177", "10177"),
              (1, "9\u{A0}11", "911"), (1, "", nil), (1, "1234567", nil),
          ] as [(Int, String, String?)])
    func fields(country: Int, field: String, expected: String?) throws {
        let normalizer = try NumberNormalizer(country: country)
        #expect(normalizer.emergencyNumber(field) == expected)
    }

    /// Bytes that are not UTF-8 read as U+FFFD, which libphonenumber drops like any other
    /// character that is no digit (`is_emergency_number("9\u{FFFD}11", "US")` is true).
    @Test("bytes that are not UTF-8 are safe and are no digits")
    func brokenUTF8() throws {
        let normalizer = try NumberNormalizer(country: 1)
        for bytes: [UInt8] in [[0x39, 0xC2, 0x31, 0x31], [0x39, 0xA0, 0x31, 0x31], [0x39, 0x31, 0x31, 0xC2], [0x39, 0x31, 0x31, 0xFF]] {
            #expect(bytes.withUnsafeBytes { normalizer.emergencyNumber($0) } == "911", "\(bytes)")
        }
        #expect(([0x39, 0xC2, 0xA0, 0x31, 0x31] as [UInt8]).withUnsafeBytes { normalizer.emergencyNumber($0) } == "911")
        #expect(([0xFF, 0xC2, 0x35] as [UInt8]).withUnsafeBytes { normalizer.emergencyNumber($0) } == nil)
    }

    /// Issue 44: every emergency number of the metadata, with the `--country` of each of its
    /// regions, under `--lenient` or not, is refused by `normalize` as `emergency-number`,
    /// also where it is a possible number (ZA `10111`, CF `1220` under `--lenient`).
    @Test("normalize refuses every emergency number of the metadata, possible or not, whatever --lenient says")
    func normalizeRefusesEveryEmergencyNumber() throws {
        var checked = 0
        for (number, regions) in Self.verdicts {
            for code in Set(regions.compactMap(CountryTable.callingCode(forRegion:))) {
                for lenient in [false, true] {
                    let normalizer = try NumberNormalizer(country: code, lenient: lenient)
                    for field in [number, "+\(code) \(number)", number + "#"] where normalizer.normalize(field) != .failure(.emergencyNumber) {
                        Issue.record("\(field) with --country \(code)\(lenient ? " --lenient" : ""): \(normalizer.normalize(field))")
                    }
                    checked += 1
                }
            }
        }
        #expect(checked > 500)
    }

    @Test("without --country any region's emergency number counts")
    func noCountry() throws {
        let normalizer = try NumberNormalizer()
        for number in ["911", "112", "999", "000", "15", "110", "119"] { #expect(normalizer.emergencyNumber(number) == number) }
        for number in ["126", "1", "5555", "+999 112"] { #expect(normalizer.emergencyNumber(number) == nil, "\(number)") }
    }
}
