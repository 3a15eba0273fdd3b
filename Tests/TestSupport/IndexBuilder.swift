import CallDirReader
import CallDirWriter
import Foundation

// Indexes for the phone libraries' tests, written by the writer a compile uses (CallDirWriter's
// `IndexComposer`) without the compiler: the reader's, device's and simulator's tests link no SQLite, zlib or
// Glibc and type-check for iOS (scripts/ios-check). `BuiltIndexTests` (CallDirTests) holds
// that these bytes are a compile's bytes.

/// Writes an index of `block` lines (`NUMBER`, `FIRST-LAST` or `DIGITS###`, E.164 digits) and `identify`
/// lines (the same, then `,LABEL`) to `output`, as `calldir compile --sort --dedupe` would:
/// numbers sorted, a repeat keeping its first label, ranges merged (blocking) or flattened
/// with the narrower range winning (identification). A line that is not of that shape is a
/// mistake in the test and throws.
@discardableResult
package func buildIndex(block: [String] = [], identify: [String] = [], output: String) throws -> IndexMetadata {
    let blocked = try block.map { try BuiltLine($0, labelled: false) }
    let identified = try identify.map { try BuiltLine($0, labelled: true) }
    var composer = IndexComposer()
    composer.blockedNumbers = { emit in for n in distinctNumbers(blocked) { try emit(n.number) } }
    composer.identifiedNumbers = { emit in
        for n in distinctNumbers(identified) { try Array(n.label.utf8).withUnsafeBytes { try emit(n.number, $0) } }
    }
    composer.blockedRanges = blocked.compactMap(\.range)
    composer.identifiedRanges = identified.compactMap { line in line.range.map { ($0, line.label) } }
    let folder = (output as NSString).deletingLastPathComponent
    return try composer.write(to: output, temporaryFolder: folder.isEmpty ? "." : folder).metadata
}

/// `buildIndex` of these lines into `folder/name`, opened.
package func buildIndex(_ folder: TempFolder, _ name: String, block: [String] = [], identify: [String] = []) throws -> CallDirIndex {
    try buildIndex(block: block, identify: identify, output: folder.file(name))
    return try CallDirIndex(path: folder.file(name))
}

/// The exact numbers of `lines`, ascending, each once with its first line's label.
private func distinctNumbers(_ lines: [BuiltLine]) -> [(number: Int64, label: String)] {
    var seen = Set<Int64>()
    return lines.enumerated().compactMap { row, line in line.range == nil ? (line.first, line.label, row) : nil }
        .sorted { ($0.0, $0.2) < ($1.0, $1.2) }
        .filter { seen.insert($0.0).inserted }
        .map { ($0.0, $0.1) }
}

/// One line of `buildIndex`: a number or a range, and its label.
private struct BuiltLine {
    var first: Int64
    var range: NumberRange?
    var label = ""

    init(_ line: String, labelled: Bool) throws {
        var text = Substring(line)
        if labelled {
            guard let comma = text.firstIndex(of: ",") else { throw BuildError(line: line) }
            label = String(text[text.index(after: comma)...])
            text = text[..<comma]
        }
        let hashes = text.reversed().prefix { $0 == "#" }.count
        if hashes > 0, let prefix = Int64(text.dropLast(hashes)), hashes < 18 {
            let span = (0..<hashes).reduce(Int64(1)) { p, _ in p * 10 }
            first = prefix * span
            range = NumberRange(first: first, last: first + span - 1)
            return
        }
        let ends = text.split(separator: "-", omittingEmptySubsequences: false).map { Int64($0.drop { $0 == "+" }) }
        guard let first = ends.first ?? nil, ends.allSatisfy({ $0 != nil }), ends.count <= 2 else { throw BuildError(line: line) }
        self.first = first
        if ends.count == 2 {
            guard first <= ends[1]! else { throw BuildError(line: line) }
            range = NumberRange(first: first, last: ends[1]!)
        }
    }
}

private struct BuildError: Error, CustomStringConvertible {
    let line: String
    var description: String { "buildIndex: '\(line)' is not NUMBER, FIRST-LAST or DIGITS### (with ,LABEL for identification)" }
}
