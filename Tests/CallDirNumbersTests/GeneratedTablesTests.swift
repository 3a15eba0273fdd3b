import Testing
@testable import CallDirNumbers

/// The tables scripts/gen-country-table.py writes as C read-only data (CNumberTables) so that a
/// one-shot lookup builds nothing at run time, checked against what Swift builds from the
/// generated rows.
@Suite("Generated C tables")
struct GeneratedTablesTests {
    @Test("CountryTable.byPrefix (PrefixRules.c) is PrefixRules(rules:) of the rows, entry for entry")
    func prefixRules() {
        let built = PrefixRules(rules: CountryTable.rules)
        let mismatches = (0..<1000).filter { CountryTable.byPrefix[UInt64($0)] != built[UInt64($0)] }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }
}
