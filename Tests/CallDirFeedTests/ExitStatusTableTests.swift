@testable import CallDirFeed
import CallDirReader
import Foundation
import Testing

/// docs/CLI.md "Exit status" is the code's one table: the same statuses as `ExitStatus`, and
/// each feed check listed on the row of the status `FeedError` maps it to.
@Suite("Exit status: one table in docs/CLI.md, the code's mapping")
struct ExitStatusTableTests {
    /// The rows of the table: status, and the feed checks of its last column.
    static func rows() throws -> [Int32: Set<String>] {
        let text = try String(contentsOf: packageRoot.appendingPathComponent("docs/CLI.md"), encoding: .utf8)
        let section = try #require(text.components(separatedBy: "\n## Exit status\n").dropFirst().first)
        var rows: [Int32: Set<String>] = [:]
        for line in section.split(separator: "\n").prefix(while: { !$0.hasPrefix("## ") }) where line.hasPrefix("| ") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 5, let status = Int32(cells[1]) else { continue }
            #expect(rows[status] == nil, "status \(status) has two rows")
            rows[status] = Set(cells[3].split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " `")) }
                .filter { !$0.isEmpty })
        }
        return rows
    }

    @Test("every status of the code has one row, and the table has no other")
    func statuses() throws {
        let rows = try Self.rows()
        #expect(Set(rows.keys) == Set(ExitStatus.allCases.map(\.rawValue)), "table: \(rows.keys.sorted())")
    }

    @Test("each feed check is listed on the row of the status its error exits with, and nowhere else")
    func feedChecks() throws {
        let rows = try Self.rows()
        for check in FeedError.Check.allCases {
            let status = FeedError(check, "").exitStatus.rawValue
            #expect(rows[status]?.contains(check.rawValue) == true, "\(check.rawValue) exits \(status)")
            #expect(rows.filter { $0.value.contains(check.rawValue) }.count == 1, "\(check.rawValue) on several rows")
        }
        let listed = rows.values.reduce(into: Set<String>()) { $0.formUnion($1) }
        #expect(listed == Set(FeedError.Check.allCases.map(\.rawValue)))
    }

    @Test("the feed commands' mapping: a feed check's status; of the library's errors usage 64, a failed write 74, else 2")
    func feedCommandMapping() {
        #expect(FeedError.exitStatus(for: FeedError(.busy, "")) == .busy)
        #expect(FeedError.exitStatus(for: CallDirError(.usage, "")) == .usage)
        #expect(FeedError.exitStatus(for: CallDirError(.io, "")) == .writeFailed)
        #expect(FeedError.exitStatus(for: CallDirError(.corruptIndex, "")) == .error)
        #expect(FeedError(.feed, "").exitCode == 66)
    }
}
