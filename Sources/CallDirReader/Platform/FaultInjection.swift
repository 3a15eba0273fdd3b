// Fault injection compiles only into debug builds (what `swift test` builds), as
// swift-system's mocking does: a release build of the reader, in an extension or the daemon,
// has no fault table, no lock and no check per call (`injectedFailure` below is `nil`, inlined
// away). Tests that inject faults are compiled only in debug builds too, and say so otherwise.
#if DEBUG
/// The calls of `Syscalls` a test can make fail (debug builds), by the name `Syscalls` passes.
package enum SystemCall: String, Sendable {
    /// open, mkstemp (the path is the template).
    case open
    case read
    /// write and pwrite.
    case write
    case fsync
    /// close of a descriptor that was written to.
    case close
    /// rename (matches the source or the destination).
    case rename
    /// unlink and rmdir.
    case unlink
    /// mkdtemp (the path is the template).
    case mkdir
    case mmap
}

/// Faults injected into `Syscalls` by tests: a call fails with a chosen errno when its path
/// contains a chosen string, optionally after some matching calls succeeded. Tests run in
/// parallel, so a fault is scoped by its path substring (use the test's own folder) and
/// removed by the test that added it; `remove` reports how often it fired, so a test can
/// check the real code path was taken.
extension Syscalls {
    package struct FaultID: Hashable, Sendable { let value: Int }

    private struct Fault {
        let id: Int
        let call: SystemCall
        let code: Int32
        let pathContaining: String
        var successesLeft: Int
        var fired = 0
    }

    private struct FaultTable {
        var faults: [Fault] = []
        var nextID = 1
    }

    private static let lock = SystemLock()
    nonisolated(unsafe) private static var table = FaultTable()  // guarded by `lock`

    /// Makes `call` fail with `errno` on paths containing `pathContaining`, after `after`
    /// matching calls succeeded. Remove it with `removeFault` when the test ends.
    package static func inject(_ call: SystemCall, errno code: Int32, pathContaining: String, after: Int = 0) -> FaultID {
        precondition(!pathContaining.isEmpty, "Syscalls.inject: scope the fault to a path")
        return lock.withLock {
            let id = table.nextID
            table.nextID += 1
            table.faults.append(Fault(id: id, call: call, code: code, pathContaining: pathContaining, successesLeft: after))
            return FaultID(value: id)
        }
    }

    /// Removes a fault; returns how many calls it made fail.
    @discardableResult
    package static func removeFault(_ id: FaultID) -> Int {
        lock.withLock {
            guard let at = table.faults.firstIndex(where: { $0.id == id.value }) else { return 0 }
            return table.faults.remove(at: at).fired
        }
    }

    /// How many calls a fault has made fail so far.
    package static func timesFired(_ id: FaultID) -> Int {
        lock.withLock { table.faults.first(where: { $0.id == id.value })?.fired ?? 0 }
    }

    /// The error an injected fault gives this call, if one matches.
    static func injectedFailure(_ call: SystemCall, path: String) -> SystemError? {
        lock.withLock {
            guard !table.faults.isEmpty else { return nil }
            for i in table.faults.indices where table.faults[i].call == call
                && path.contains(table.faults[i].pathContaining) {
                if table.faults[i].successesLeft > 0 {
                    table.faults[i].successesLeft -= 1
                    continue
                }
                table.faults[i].fired += 1
                return SystemError(code: table.faults[i].code)
            }
            return nil
        }
    }
}
#else
/// What `Syscalls` passes for a call; release builds read it nowhere (no raw values, no table).
enum SystemCall { case open, read, write, fsync, close, rename, unlink, mkdir, mmap }

extension Syscalls {
    /// Release builds inject nothing: every call goes to the system.
    @inline(__always)
    static func injectedFailure(_ call: SystemCall, path: String) -> SystemError? { nil }
}
#endif
