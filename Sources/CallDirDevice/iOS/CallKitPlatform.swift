// The app's CallKit and UIKit glue (product `CallDirDevice`; the extension links none of it:
// `UIApplication.shared` is not extension-safe). Inside `#if canImport(CallKit)`: Linux builds
// leave it out, scripts/ios-check compiles it for arm64-apple-ios.
#if canImport(CallKit) && canImport(UIKit)
import CallDirReader
import CallKit
import Foundation
import UIKit

/// `CallDirectoryPlatform` on iOS, for `ReloadCoordinator(folder:platform:)`: CallKit's
/// manager and UIKit's background tasks. When the background time runs out, iOS calls the
/// expiration handler: it calls `onBackgroundTimeExpiring` (cancel the `Task` running
/// `loadAll`, which then stops after the request under way, records consistent, and schedule
/// the rest: `CallDirBackgroundLoading.schedule`) and ends the task, as iOS requires.
public final class CallKitPlatform: CallDirectoryPlatform, @unchecked Sendable {  // `ended` is guarded by `lock`
    /// The Call Directory extension's bundle identifier (`com.example.calldir.CallDirectory`).
    public let extensionIdentifier: String
    private let onBackgroundTimeExpiring: @Sendable () -> Void
    private let lock = NSLock()
    private var ended: Set<Int> = []

    /// `onBackgroundTimeExpiring`: called when the background time runs out (cancel the task
    /// running `loadAll` and schedule the rest); the task itself is ended here.
    public init(extensionIdentifier: String, onBackgroundTimeExpiring: @escaping @Sendable () -> Void = {}) {
        self.extensionIdentifier = extensionIdentifier
        self.onBackgroundTimeExpiring = onBackgroundTimeExpiring
    }

    // CallKit's completion-handler API behind continuations, not its imported `async` forms:
    // SILGen of an imported Objective-C async call needs runtime support the iOS 16.5 SDK's
    // _Concurrency lacks, and Swift 6.3.1 crashes there (signal 11 in
    // emitForeignAsyncCompletionHandler, scripts/ios-check).
    public func reloadExtension() async -> CallDirectoryErrorCode? {
        let identifier = extensionIdentifier
        let error: (any Error)? = await withCheckedContinuation { done in
            CXCallDirectoryManager.sharedInstance.reloadExtension(withIdentifier: identifier) { done.resume(returning: $0) }
        }
        guard let nsError = error.map({ $0 as NSError }) else { return nil }
        return CallDirectoryErrorCode(domain: nsError.domain, code: nsError.code)
    }

    public func isExtensionEnabled() async -> Bool? {
        let identifier = extensionIdentifier
        let status: CXCallDirectoryManager.EnabledStatus? = await withCheckedContinuation { done in
            CXCallDirectoryManager.sharedInstance.getEnabledStatusForExtension(withIdentifier: identifier) { status, error in
                done.resume(returning: error == nil ? status : nil)
            }
        }
        switch status {
        case .enabled: return true
        case .disabled: return false
        default: return nil
        }
    }

    @MainActor
    public func beginBackgroundTask() async -> Int {
        let box = BackgroundTaskBox()
        box.identifier = UIApplication.shared.beginBackgroundTask(withName: "calldir reload") { [self] in
            onBackgroundTimeExpiring()
            endOnce(box.identifier.rawValue)
        }
        return box.identifier.rawValue
    }

    @MainActor
    public func endBackgroundTask(_ token: Int) async { endOnce(token) }

    /// Ends a background task once, whichever of the expiration handler and `loadAll` is first.
    /// On the main actor, as `UIApplication` is (the expiration handler runs there too).
    @MainActor
    private func endOnce(_ token: Int) {
        lock.lock()
        let first = ended.insert(token).inserted
        lock.unlock()
        if first { UIApplication.shared.endBackgroundTask(UIBackgroundTaskIdentifier(rawValue: token)) }
    }
}

private final class BackgroundTaskBox: @unchecked Sendable {  // set once on the main thread, read there
    var identifier: UIBackgroundTaskIdentifier = .invalid
}
#endif
