import CallDirNumbers
import Testing

/// The inputs issue 33 quotes, each with libphonenumber's answer (phonenumbers 9.0.43,
/// `parse(input, region)` formatted as E.164), as the normaliser must give it.
@Suite("libphonenumber examples")
struct LibphonenumberExampleTests {
    typealias Case = NumberNormalizerTests.Case

    @Test(arguments: [
        // E.164 digits without '+' under --country: the calling code is stripped, not doubled.
        Case.number("390212345678", 39, 390_212_345_678),
        Case.number("56221234567", 56, 56_221_234_567),
        Case.number("85221234567", 852, 85_221_234_567),
        Case.number("34912345678", 34, 34_912_345_678),
        // National lists in their usual form.
        Case.number("131 2347 2898", 86, 8_613_123_472_898),
        Case.number("(11) 2340-8118", 55, 551_123_408_118),
        Case.number("(11) 96127-0609", 55, 5_511_961_270_609),
        Case.number("1800 142 074", 61, 611_800_142_074),
        Case.number("011 15-2344-8765", 54, 5_491_123_448_765),
        Case.number("1544-2070", 82, 8_215_442_070),
        Case.number("9180334018", 91, 919_180_334_018),
        // (0) and a trunk 0 after +CC: kept in Italy, dropped where it is the trunk prefix.
        Case.number("+39 (0)1123456789", nil, 3_901_123_456_789),
        Case.number("+39 (0)6 1234 5678", nil, 390_612_345_678),
        Case.number("+41 (0)21 213 09 11", nil, 41_212_130_911),
        Case.number("+91 08123456789", nil, 918_123_456_789),
        Case.number("+91 08123456789", 91, 918_123_456_789),
        // A bare '-' between two 7-digit sides that make no range (found by the differential
        // test, seed 173499196): one number to libphonenumber (possible, not valid).
        Case.number("+972 1599-8263405", nil, 97_215_998_263_405),
        Case.number("+972 1599-8263405", 972, 97_215_998_263_405),
    ])
    func issueExamples(_ c: Case) throws { try c.check() }
}
