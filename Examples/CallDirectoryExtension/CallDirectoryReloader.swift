#if canImport(CallKit)
import CallDirReader
import CallKit
import Foundation

/// In the app: loads the whole index into the extension, one `reloadExtension` per request,
/// committing progress only after CallKit reports success. Call it after installing a new
/// index, and again later (e.g. on the next launch) if it returned early.
enum CallDirectoryReloader {
    static let extensionIdentifier = "com.example.calldir.CallDirectory"  // your extension's bundle id

    /// Returns nil once the device holds the whole index, or the CallKit error that stopped it.
    static func loadAll() async -> CallDirectoryErrorCode? {
        let files = SharedFiles()
        while true {
            do {
                try await CXCallDirectoryManager.sharedInstance.reloadExtension(withIdentifier: extensionIdentifier)
            } catch {
                // Any failure deletes every entry on the device: forget all progress, so the
                // next request is complete and starts from the first entry.
                files.remove(SharedFiles.pending)
                files.remove(SharedFiles.committed)
                let nsError = error as NSError
                return nsError.domain == CXErrorCodeCallDirectoryManagerError.errorDomain
                    ? CallDirectoryErrorCode(code: nsError.code) : .unknown(nsError.code)
            }
            guard let pending = files.read(SharedFiles.pending),
                  let step = try? LoadCheckpoint(bytes: pending) else { return nil }  // the extension fed nothing
            do {
                try files.write(SharedFiles.committed, pending)  // commit first: a crash in between
            } catch {                                            // leaves pending, which means "start over"
                files.remove(SharedFiles.committed)  // progress cannot be recorded: start over (always safe)
                return .unknown(0)
            }
            files.remove(SharedFiles.pending)
            if step.isFinished {
                try? FileManager.default.removeItem(at: files.previousIndex)  // the device holds the index now
                return nil
            }
        }
    }
}
#endif
