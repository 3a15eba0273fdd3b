#if os(iOS)
import CallDirCallKit
import CallDirShared
import CallKit

/// The extension's principal class (Info.plist `NSExtensionPrincipalClass`). Each request
/// feeds at most `DeviceLoader.defaultRequestSize` entries from the shared index (fewer after
/// the app halved the size), continuing where the last committed or confirmed request ended;
/// after a new index was installed, only the changes from the previous one. Before the first
/// install it completes empty. `CallDirectoryRequestHandler` (product `CallDirCallKit`) keeps
/// the protocol's order: the under-way record first, the checkpoint after feeding, the
/// confirmation (or, expired, the under-way record again) in the completion handler. With the
/// region, it applies the user's layer (`personal.txt`, `contacts.vcf`) and sends a change of
/// it as only the changed entries.
final class CallDirectoryHandler: CXCallDirectoryProvider, CXCallDirectoryExtensionContextDelegate {
    private let handler = CallDirectoryRequestHandler(appGroup: CallDirIdentifiers.appGroup, region: CallDirIdentifiers.region)

    override func beginRequest(with context: CXCallDirectoryExtensionContext) {
        context.delegate = self
        handler.beginRequest(with: context)
    }

    /// The host failed the request (e.g. a batch it could not store): stop feeding.
    func requestFailed(for extensionContext: CXCallDirectoryExtensionContext, withError error: any Error) {
        handler.requestFailed()
    }
}
#endif
