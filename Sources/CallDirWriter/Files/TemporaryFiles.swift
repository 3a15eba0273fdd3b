#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CallDirReader

/// Paths of temporary files and folders that must not outlive the process: removed by their
/// owners on success and failure, and by `installInterruptCleanup()` on SIGINT/SIGTERM.
///
/// The signal handler cannot take locks or allocate, so paths live in a fixed table of
/// C strings that the handler only reads. The lock is the reader's pthread `SystemLock`
/// (Swift's `Mutex` needs iOS 18). Part of CallDirPatch's platform seam (signals, `strdup`).
package enum TemporaryFiles {
    private static let capacity = 1024
    nonisolated(unsafe) private static let table =
        UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity)
    private static let lock = SystemLock()
    /// True once the table is initialised; read and written under `lock` only.
    nonisolated(unsafe) private static var ready = false

    /// Starts tracking `path`; returns false (path untracked) if the table is full.
    @discardableResult
    package static func register(_ path: String) -> Bool {
        lock.withLock {
            if !ready { table.initialize(repeating: nil, count: capacity); ready = true }
            for i in 0..<capacity where table[i] == nil {
                table[i] = strdup(path)
                return true
            }
            return false
        }
    }

    package static func unregister(_ path: String) {
        lock.withLock {
            guard ready else { return }
            for i in 0..<capacity {
                if let entry = table[i], String(cString: entry) == path {
                    table[i] = nil
                    free(entry)
                }
            }
        }
    }

    /// On SIGINT or SIGTERM: remove every registered file or empty folder, then exit 130/143.
    /// Call once from a command-line tool; servers handle signals themselves.
    package static func installInterruptCleanup() {
        lock.withLock {
            if !ready { table.initialize(repeating: nil, count: capacity); ready = true }
        }
        signal(SIGINT) { sig in TemporaryFiles.removeAllFromSignalHandler(); _exit(128 + sig) }
        signal(SIGTERM) { sig in TemporaryFiles.removeAllFromSignalHandler(); _exit(128 + sig) }
        // A parent may have started us with these blocked (the mask is inherited): unblock.
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        sigprocmask(SIG_UNBLOCK, &set, nil)
    }

    private static func removeAllFromSignalHandler() {
        // Files first, then folders (a folder registered before its files is empty by then).
        for pass in 0..<2 {
            for i in 0..<capacity {
                guard let entry = table[i] else { continue }
                if pass == 0 { unlink(entry) } else { rmdir(entry) }
            }
        }
    }
}
