// The CallKit glue an app links by URL (product `CallDirCallKit`). Every line that needs
// CallKit, UIKit or the App Group container is inside `#if canImport(CallKit)`: Linux builds
// compile this target empty, Apple platforms compile all of it.
#if canImport(CallKit) && canImport(UIKit)
import CallDirDevice
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
    public let extensionIdentifier: String
    private let onBackgroundTimeExpiring: @Sendable () -> Void
    private let lock = NSLock()
    private var ended: Set<Int> = []

    public init(extensionIdentifier: String, onBackgroundTimeExpiring: @escaping @Sendable () -> Void = {}) {
        self.extensionIdentifier = extensionIdentifier
        self.onBackgroundTimeExpiring = onBackgroundTimeExpiring
    }

    public func reloadExtension() async -> CallDirectoryErrorCode? {
        do {
            try await CXCallDirectoryManager.sharedInstance.reloadExtension(withIdentifier: extensionIdentifier)
            return nil
        } catch {
            let nsError = error as NSError
            return CallDirectoryErrorCode(domain: nsError.domain, code: nsError.code)
        }
    }

    public func isExtensionEnabled() async -> Bool? {
        guard let status = try? await CXCallDirectoryManager.sharedInstance.enabledStatusForExtension(withIdentifier: extensionIdentifier)
        else { return nil }
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
