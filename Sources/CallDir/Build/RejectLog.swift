import CallDirNumbers
import CallDirReader
import CallDirWriter
/// Counts every row that does not become an entry, by reason, and optionally lists each one
/// (`--rejects FILE`: tab-separated `source:line`, reason, original text). Nothing is dropped
/// without being counted here.
final class RejectLog {
    private(set) var counts: [RejectReason: Int] = [:]
    private let file: AtomicFile?
    private let sourceNames: [String]
    private var line: [UInt8] = []

    init(path: String?, sourceNames: [String]) throws {
        file = try path.map { try AtomicFile(destination: $0, role: "the rejects list") }
        self.sourceNames = sourceNames
        if let file { try file.append(Array("# source:line\treason\ttext\n".utf8)) }
    }

    var total: Int { counts.values.reduce(0, +) }

    /// Whether rows are listed (`--rejects FILE`), so a caller can skip making their text.
    var isListed: Bool { file != nil }

    /// Counts a row that is not listed (`isListed` is false).
    func count(_ reason: RejectReason) { counts[reason, default: 0] += 1 }

    func record(_ origin: Origin, reason: RejectReason, text: UnsafeRawBufferPointer) throws {
        counts[reason, default: 0] += 1
        guard let file else { return }
        line.removeAll(keepingCapacity: true)
        line.append(contentsOf: "\(sourceNames[origin.source]):\(origin.line)\t\(reason.rawValue)\t".utf8)
        for byte in text where byte != 0x0A && byte != 0x0D { line.append(byte == 0x09 ? 0x20 : byte) }
        line.append(0x0A)
        try file.append(line)
    }

    func record(_ origin: Origin, reason: RejectReason, text: String) throws {
        var text = text
        try text.withUTF8 { try record(origin, reason: reason, text: UnsafeRawBufferPointer($0)) }
    }

    /// Completes the list and makes it durable, unpublished (before the index is published).
    func prepare() throws { try file?.prepare() }

    /// Publishes a prepared list.
    func commit() throws { try file?.commit() }

    /// Publishes the list of a compile whose rows were rejected (it explains the failure).
    func publish() throws { try file?.publish() }

    /// Removes the unpublished list.
    func discard() { file?.discard() }
}
