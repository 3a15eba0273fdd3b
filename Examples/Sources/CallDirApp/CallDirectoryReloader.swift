#if os(iOS)
import CallDirReader
import CallKit
import Foundation

/// In the app: loads the whole index into the extension, one `reloadExtension` per request,
/// committing progress only after CallKit reports success and the extension left a fed
/// checkpoint. Call it after installing a new index, and again later (e.g. on the next
/// launch) if it returned early.
enum CallDirectoryReloader {
    static let extensionIdentifier = "com.example.calldir.CallDirectory"  // your extension's bundle id

    /// Returns nil once the device holds the whole index, or the CallKit error that stopped it.
    static func loadAll() async -> CallDirectoryErrorCode? {
        let folder = SharedFiles.folder()
        var restarts = 0
        while true {
            // A record the app did not commit (a request nobody watched, e.g. started by the
            // system): the store may be empty. Forget the progress; the next request is complete.
            if LoadCheckpoint.pendingRecord(try? folder.readPending()) != .none { startOver(folder) }
            do {
                try await CXCallDirectoryManager.sharedInstance.reloadExtension(withIdentifier: extensionIdentifier)
            } catch {
                startOver(folder)  // any failure deletes every entry on the device
                let nsError = error as NSError
                return nsError.domain == CXErrorCodeCallDirectoryManagerError.errorDomain
                    ? CallDirectoryErrorCode(code: nsError.code) : .unknown(nsError.code)
            }
            // Success, but only a fed checkpoint proves what was added (an expired completion
            // leaves the under-way record): anything else starts over.
            guard case .fed(let step) = LoadCheckpoint.pendingRecord(try? folder.readPending()) else {
                startOver(folder)
                restarts += 1
                if restarts > 3 { return .loadingInterrupted }
                continue
            }
            do {
                try folder.writeAtomically(step.bytes, to: folder.committedPath)  // a crash here leaves pending: start over
                try folder.remove(folder.pendingPath)
            } catch {
                startOver(folder)
                return .unknown(0)
            }
            if step.isFinished { return nil }
        }
    }

    /// Committed first, then pending: a crash in between still leaves "start over".
    private static func startOver(_ folder: SharedFolder) {
        try? folder.remove(folder.committedPath)
        try? folder.remove(folder.pendingPath)
    }
}
#endif
