#if os(iOS)
import CallDirReader
import CallDirShared
import CallKit
import Foundation

/// The extension's principal class (Info.plist `NSExtensionPrincipalClass`). Each request
/// feeds at most `DeviceLoader.defaultRequestSize` entries from the shared index, continuing
/// where the last request the app committed ended; after a new index was installed, only the
/// changes from the previous one. `CallDirectoryExtensionRequest` keeps the protocol's order:
/// the under-way record first, the checkpoint only after feeding (docs/CALLKIT.md).
final class CallDirectoryHandler: CXCallDirectoryProvider, CXCallDirectoryExtensionContextDelegate {
    private var request: CallDirectoryExtensionRequest?

    override func beginRequest(with context: CXCallDirectoryExtensionContext) {
        context.delegate = self
        let request = CallDirectoryExtensionRequest(folder: SharedFiles.folder())
        self.request = request
        do {
            _ = try request.run(into: context)
            // Expired: CallKit added nothing. The record goes back to "under way", so the app
            // never commits this checkpoint (even if reloadExtension reports success).
            context.completeRequest { expired in request.completed(expired: expired) }
        } catch {
            // A missing or damaged index, a record that cannot be written, or a request the
            // host already failed: fail it (CallKit then deletes every entry; the under-way
            // record tells the app to start over).
            context.cancelRequest(withError: error)
        }
    }

    /// The host failed the request (e.g. a batch it could not store): stop feeding.
    func requestFailed(for extensionContext: CXCallDirectoryExtensionContext, withError error: any Error) {
        request?.stop()
    }
}
#endif
