import Foundation
import Testing
@testable import CallDir
@testable import CallDirNumberTypes
import CallDirReader
import CompileSupport
import TestSupport

/// `compile --valid-only` and `--types` (issue 33 item 3): by default every number
/// libphonenumber calls possible is kept; `--valid-only` refuses the invalid ones (`not-valid`),
/// `--types` keeps the named types only (`excluded-type`), and the summary counts each type
/// kept. Types as phonenumbers 9.0.43's `number_type` gives them.
@Suite("Number types and validity in a compile")
struct NumberTypeFilterTests {
    static let rows = [
        "+41 79 123 45 67",  // CH mobile
        "+41 21 213 09 11",  // CH fixed line
        "+41 800 123 456",  // CH toll-free
        "+41 99 123 45 67",  // possible, not valid
        "+44 7400 123456",  // GB mobile
        "+44 4123 456789",  // possible, not valid
        "+1 800 234 5678",  // toll-free
        "+1 201 555 0123",  // fixed line or mobile
    ]

    func run(_ configure: (inout CompileOptions) -> Void) throws -> CompileSummary {
        let folder = TempFolder()
        defer { folder.remove() }
        let list = folder.write("b.txt", Self.rows)
        return try compile(block: [list], output: folder.file("b.calldir")) {
            $0.sort = true
            $0.skipInvalid = true
            configure(&$0)
        }
    }

    @Test func possibleByDefault() throws {
        let summary = try run { _ in }
        #expect(summary.blockedNumbers == 8 && summary.rejectedTotal == 0 && summary.numbersByType.isEmpty)
    }

    @Test func validOnly() throws {
        let summary = try run { $0.validOnly = true }
        #expect(summary.blockedNumbers == 6)
        #expect(summary.rejected["not-valid"] == 2)
        #expect(summary.numbersByType.map { "\($0.type) \($0.count)" }
                == ["fixed-line 1", "fixed-line-or-mobile 1", "mobile 2", "toll-free 2"])
    }

    @Test func typesKeepTheNamedOnes() throws {
        let summary = try run { $0.types = ["mobile"] }
        // fixed-line-or-mobile counts as mobile: the US cannot tell them apart.
        #expect(summary.blockedNumbers == 3)
        #expect(summary.rejected["not-valid"] == 2 && summary.rejected["excluded-type"] == 3)
        #expect(summary.numbersByType.map { "\($0.type) \($0.count)" } == ["fixed-line-or-mobile 1", "mobile 2"])
    }

    /// `inspect` counts the stored numbers by type (issue 33 item 3), invalid ones apart: the
    /// format stores no type, so they are computed from the same tables.
    @Test func inspectCountsTypes() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let list = folder.write("b.txt", Self.rows)
        let output = folder.file("b.calldir")
        _ = try compile(block: [list], output: output) { $0.sort = true }
        let counts = try IndexTypeCounts(CallDirIndex(path: output))
        #expect(counts.byType.map { "\($0.type) \($0.count)" }
                == ["fixedLine 1", "mobile 2", "fixedLineOrMobile 1", "tollFree 2"])
        #expect(counts.invalid == 2)
        #expect(counts.json.rendered() == #"{"fixed-line":1,"mobile":2,"fixed-line-or-mobile":1,"toll-free":2,"invalid":2}"#)
    }

    /// The walk over the packed tables (`TypeWalk`) gives the verdict of the rows as generated
    /// (`slowType`) for every kind of number, valid or not, of every calling code and length.
    @Test func fastWalkAgreesWithTheGeneratedRows() {
        var seed: UInt64 = 33
        func next() -> UInt64 { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return seed >> 11 }
        let codes = (1..<1000).filter { !NumberTypes.byCode[$0].isEmpty }
        var valid = 0
        for _ in 0..<200_000 {
            var number = Int64(codes[Int(next() % UInt64(codes.count))])
            for _ in 0..<(3 + next() % 13) { number = number * 10 + Int64(next() % 10) }  // up to 18 digits: both paths
            guard let code = CountryTable.callingCode(ofE164: number) else { continue }
            let fast = NumberTypes.type(ofE164: number)
            #expect(fast == NumberTypes.slowType(ofE164: number, code: code), "\(number)")
            if fast != nil { valid += 1 }
        }
        #expect(valid > 1_000)  // the corpus reaches the types, not only the rejections
        #expect(NumberType.allCases.enumerated().allSatisfy { $0.offset == $0.element.index })
    }

    /// Near valid numbers, where the types part: every example number libphonenumber gives
    /// (`country-examples.tsv`), with each digit replaced by every other, and one digit longer
    /// and shorter. The product DFA gives the rows' verdict for each.
    @Test func fastWalkAgreesNearEveryExampleNumber() {
        var compared = 0
        var types = Set<NumberType>()
        for example in CountryTableTests.examples where example.kind == "valid" {
            let digits = Array(example.digits.utf8).map { Int64($0 - 0x30) }
            var variants = [digits + [5], Array(digits.dropLast())]
            for i in digits.indices { for d in 0..<10 { var v = digits; v[i] = Int64(d); variants.append(v) } }
            for variant in variants where variant.first != 0 {
                let number = variant.reduce(0) { $0 * 10 + $1 }
                guard let code = CountryTable.callingCode(ofE164: number) else { continue }
                let fast = NumberTypes.type(ofE164: number)
                #expect(fast == NumberTypes.slowType(ofE164: number, code: code), "\(number)")
                if let fast { types.insert(fast) }
                compared += 1
            }
        }
        #expect(compared > 100_000 && types.count == NumberType.allCases.count)
    }

    /// Issue 33's budget: the tables that decide validity and type stay under 1 MiB.
    @Test func typeTableFitsTheBudget() {
        let walk = NumberTypes.walk
        #expect(walk.stateCount * (10 * MemoryLayout<UInt16>.size + 1) < 1 << 20)
    }
}
