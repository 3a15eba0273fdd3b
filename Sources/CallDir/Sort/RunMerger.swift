/// k-way merge of sorted runs with a binary min-heap keyed by (number, origin, run index).
/// Runs are given in the order their records were appended, so the run index as last key
/// keeps equal records in appending order: the merge is stable.
enum RunMerger {
    private struct Entry {
        var number: Int64
        var origin: UInt64
        var run: Int

        @inline(__always)
        static func < (a: Entry, b: Entry) -> Bool {
            if a.number != b.number { return a.number < b.number }
            if a.origin != b.origin { return a.origin < b.origin }
            return a.run < b.run
        }
    }

    /// Calls `emit` for every record of `runs` in merged order. The label passed to `emit`
    /// points into a reader's buffer and is valid only during the call.
    static func merge(_ runs: [RunReader],
                      into emit: (Int64, UInt64, UnsafeRawBufferPointer?) throws -> Void) throws {
        var heap: [Entry] = []
        heap.reserveCapacity(runs.count)
        for (index, run) in runs.enumerated() where try run.next() {
            heap.append(Entry(number: run.number, origin: run.origin, run: index))
        }
        for position in stride(from: heap.count / 2 - 1, through: 0, by: -1) {
            siftDown(&heap, from: position)
        }
        while let top = heap.first {
            let run = runs[top.run]
            try emit(top.number, top.origin, run.label)
            if try run.next() {
                heap[0] = Entry(number: run.number, origin: run.origin, run: top.run)
            } else {
                let last = heap.removeLast()
                if heap.isEmpty { break }
                heap[0] = last
            }
            siftDown(&heap, from: 0)
        }
    }

    private static func siftDown(_ heap: inout [Entry], from start: Int) {
        let count = heap.count
        var parent = start
        let item = heap[parent]
        while true {
            var child = 2 * parent + 1
            if child >= count { break }
            if child + 1 < count && heap[child + 1] < heap[child] { child += 1 }
            if !(heap[child] < item) { break }
            heap[parent] = heap[child]
            parent = child
        }
        heap[parent] = item
    }
}
