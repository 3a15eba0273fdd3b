import Foundation
import Testing
@testable import CallDir
@testable import CallDirReader
import TestSupport

/// The fuzzers open hostile bytes in place through `MappedFile(borrowing:)`; it must read an
/// index exactly as the mapped file does.
@Suite("Index read from borrowed bytes")
struct BorrowedIndexTests {
    static let fixture = goldenFixtures.appendingPathComponent("tiny.calldir").path

    @Test func borrowedBytesAnswerLikeTheMappedFile() throws {
        let mapped = try CallDirIndex(path: Self.fixture, verify: true)
        let bytes = try #require(FileManager.default.contents(atPath: Self.fixture))
        try [UInt8](bytes).withUnsafeBytes { raw in
            let borrowed = try CallDirIndex(file: MappedFile(borrowing: raw, path: "memory"), verify: true)
            #expect(borrowed.checksum == mapped.checksum)
            var numbers: [Int64] = [0, 1, Int64.max]
            try mapped.forEachBlockedNumber { numbers += [$0, $0 + 1] }
            try mapped.forEachIdentifiedNumber { n, _ in numbers += [n, n - 1] }
            #expect(numbers.count > 3)
            #expect(try borrowed.lookup(numbers) == mapped.lookup(numbers))
        }
    }
}
