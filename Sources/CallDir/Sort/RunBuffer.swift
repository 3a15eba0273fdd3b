#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CallDirReader

/// One record held in memory while a run is collected: 24 bytes, the label kept elsewhere.
struct SortRecord {
    var number: Int64
    var origin: UInt64
    /// Byte offset of the label in the run buffer.
    var labelOffset: UInt32
    /// Label length in bytes, or `SortRecord.noLabel` when the label is nil.
    var labelLength: UInt32

    static let noLabel = UInt32.max
}

/// The records of one run in a single anonymous mapping of `capacity` bytes, so the run never
/// holds more than the budget however records and labels are mixed:
///
///     [records →][sort scratch, as large as the records →]   free   [← label bytes]
///
/// Records grow from the front, labels from the back. Each record reserves a second slot for
/// the radix sort's scratch copy, so sorting needs no memory beyond the mapping. Pages are
/// touched only as they are used, so a small list costs little whatever the budget.
final class RunBuffer {
    /// Bytes one record costs besides its label: the record and its scratch slot.
    static let recordCost = 2 * MemoryLayout<SortRecord>.stride

    let capacity: Int
    // `@exclusivity(unchecked)`: see RunReader.
    @exclusivity(unchecked) private var base: UnsafeMutableRawPointer?
    @exclusivity(unchecked) private(set) var count = 0
    @exclusivity(unchecked) private var labelTop: Int
    /// True while every record came with an origin no smaller than the one before, so a
    /// stable sort by number alone yields (number, origin) order.
    @exclusivity(unchecked) private var originsAscending = true
    @exclusivity(unchecked) private var lastOrigin: UInt64 = 0
    @exclusivity(unchecked) private var sortedRecords: UnsafeMutablePointer<SortRecord>?

    /// `capacity` must fit the label offsets (at most `UInt32.max`).
    init(capacity: Int) {
        precondition(capacity > 0 && capacity <= Int(UInt32.max), "RunBuffer: capacity out of range")
        self.capacity = capacity
        self.labelTop = capacity
    }

    deinit { release() }

    var isEmpty: Bool { count == 0 }

    /// Whether a record with a label of `labelLength` bytes fits in an otherwise empty buffer.
    static func fitsAlone(labelLength: Int, capacity: Int) -> Bool {
        recordCost + labelLength <= capacity
    }

    /// Whether one more record with a label of `labelLength` bytes fits now.
    func hasRoom(labelLength: Int) -> Bool {
        (count + 1) * RunBuffer.recordCost + labelLength <= labelTop
    }

    /// Adds a record; the caller has checked `hasRoom`. The label bytes are copied.
    func append(number: Int64, origin: UInt64, label: UnsafeRawBufferPointer?) throws {
        precondition(sortedRecords == nil, "RunBuffer: append after sort without reset")
        let length = label?.count ?? 0
        precondition(hasRoom(labelLength: length), "RunBuffer: append without room")
        let memory = try mapped()
        var record = SortRecord(number: number, origin: origin, labelOffset: 0, labelLength: SortRecord.noLabel)
        if let label {
            labelTop -= length
            if length > 0 { (memory + labelTop).copyMemory(from: label.baseAddress!, byteCount: length) }
            record.labelOffset = UInt32(labelTop)
            record.labelLength = UInt32(length)
        }
        memory.assumingMemoryBound(to: SortRecord.self)[count] = record
        count += 1
        if origin < lastOrigin { originsAscending = false }
        lastOrigin = origin
    }

    /// Sorts the records by (number, origin), keeping the order of appending among equal
    /// records, and returns them. Valid until `reset()` or `release()`.
    func sorted() -> UnsafeBufferPointer<SortRecord> {
        guard let base, count > 0 else { return UnsafeBufferPointer(start: nil, count: 0) }
        if sortedRecords == nil {
            let records = base.assumingMemoryBound(to: SortRecord.self)
            sortedRecords = RadixSort.sort(records, scratch: records + count, count: count,
                                           byOrigin: !originsAscending)
        }
        return UnsafeBufferPointer(start: sortedRecords, count: count)
    }

    /// The label bytes of `record` (which must come from this buffer since the last reset).
    func label(of record: SortRecord) -> UnsafeRawBufferPointer? {
        guard record.labelLength != SortRecord.noLabel else { return nil }
        return UnsafeRawBufferPointer(start: base! + Int(record.labelOffset), count: Int(record.labelLength))
    }

    /// Forgets all records; the memory stays mapped for the next run.
    func reset() {
        count = 0
        labelTop = capacity
        originsAscending = true
        lastOrigin = 0
        sortedRecords = nil
    }

    /// Forgets all records and returns the memory to the system (mapped again on next append).
    func release() {
        reset()
        if let base { munmap(base, capacity) }
        base = nil
    }

    private func mapped() throws -> UnsafeMutableRawPointer {
        if let base { return base }
        let address = mmap(nil, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let address, address != MAP_FAILED else {
            throw CallDirError(.limitExceeded,
                               "cannot reserve \(capacity) bytes of memory for sorting (\(SystemError.current().text)); "
                                   + "lower the memory budget")
        }
        base = address
        return address
    }
}
