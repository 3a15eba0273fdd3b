import Testing
import CallDirNumbers

/// Issue 44 item 3: `--country REGION` reads national numbers with that region's own rules, as
/// libphonenumber's `parse(text, REGION)` does (expected values are phonenumbers 9.0.43's); a
/// calling code with its main region's. The differential test covers every region; these hold
/// the examples without the venv.
@Suite("--country REGION of a shared calling code")
struct RegionRulesTests {
    @Test(arguments: [
        ("CX", "90667967", 61_890_667_967),      // area code 8 completed (was +6190667967)
        ("CC", "0891621234", 61_891_621_234),
        ("AX", "358223543", 358_223_543),        // own code stripped, AX's pattern (was +358358223543)
        ("BS", "322 1234", 12_423_221_234),      // 7 digits: the area code 242 put back
        ("VG", "4941234", 12_844_941_234),
        ("LC", "4501234", 17_584_501_234),
        ("JE", "123456", 441_534_123_456),
        ("GG", "01481 256789", 441_481_256_789),
        ("IM", "0701595769", 440_701_595_769),  // 9 digits left: too short for IM, the 0 is kept
        ("cx", "+61 8 9066 7967", 61_890_667_967),
    ] as [(String, String, Int64)])
    func regionReadsItsOwnRules(region: String, field: String, expected: Int64) throws {
        #expect(try NumberNormalizer(region: region).normalize(field) == .success(.number(expected)))
    }

    /// The calling code keeps its main region's rules, as documented.
    @Test func callingCodeReadsTheMainRegion() throws {
        #expect(try NumberNormalizer(country: 61).normalize("90667967") == .success(.number(6_190_667_967)))
        #expect(try NumberNormalizer(country: 1).normalize("322 1234") == .failure(.tooShort))
        #expect(try NumberNormalizer(country: 44).normalize("123456") == .failure(.tooShort))
        #expect(try NumberNormalizer(country: 61, region: nil).normalize("90667967") == .success(.number(6_190_667_967)))
    }

    @Test func unknownRegionIsAUsageError() {
        #expect(throws: (any Error).self) { try NumberNormalizer(region: "ZZ") }
        #expect(throws: (any Error).self) { try NumberNormalizer(region: "") }
        #expect(throws: (any Error).self) { try NumberNormalizer(region: "CXX") }
    }
}
