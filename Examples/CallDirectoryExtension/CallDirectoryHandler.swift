#if canImport(CallKit)
import CallDirReader
import CallKit
import Foundation

/// The extension's principal class (Info.plist `NSExtensionPrincipalClass`). Each request
/// feeds at most `DeviceLoader.defaultRequestSize` entries from the shared index, in the order
/// CallKit demands, continuing where the last successful request ended; after a new index was
/// installed, only the changes from the previous one. It never decides what succeeded: it
/// leaves the next checkpoint as *pending* for the app to commit.
final class CallDirectoryHandler: CXCallDirectoryProvider {
    override func beginRequest(with context: CXCallDirectoryExtensionContext) {
        let files = SharedFiles()
        do {
            // Opening maps the file and checks its header, tables and small sections; number
            // blocks are checked as they are read. Memory stays flat whatever the index's size.
            let index = try CallDirIndex(path: files.index.path)
            // With the previous index at hand, a device that holds it completely (the
            // committed checkpoint says so) gets only the changes: removals, then additions.
            // Anything else is a load of `index` as before; a damaged previous file is ignored.
            let previous = FileManager.default.fileExists(atPath: files.previousIndex.path)
                ? try? CallDirIndex(path: files.previousIndex.path) : nil
            let loader = try DeviceLoader(index: index, previous: previous)
            // A pending checkpoint still here means a request ran that the app never saw (the
            // system starts the extension on its own too): the device's state is unknown, so
            // resumePoint gives nil and this request is complete, from the first entry.
            let start = LoadCheckpoint.resumePoint(committed: files.read(SharedFiles.committed),
                                                   pendingLeftOver: files.read(SharedFiles.pending))
            let step = try loader.loadRequest(into: context, resumingFrom: start)
            try files.write(SharedFiles.pending, step.checkpoint.bytes)
            context.completeRequest()
        } catch {
            // A damaged or missing index: fail the request (CallKit then deletes every entry).
            context.cancelRequest(withError: error)
        }
    }
}
#endif
