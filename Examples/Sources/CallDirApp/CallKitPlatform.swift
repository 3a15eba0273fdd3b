#if os(iOS)
import CallDirReader
import CallDirShared
import CallKit
import UIKit
import CallDirPatch

/// The platform calls `ReloadCoordinator` needs, on iOS: CallKit's manager and UIKit's
/// background tasks. Everything else (installing, reloading, committing, starting over) is the
/// library's, tested on Linux against the simulator.
struct CallKitPlatform: CallDirectoryPlatform {
    let extensionIdentifier = CallDirIdentifiers.extensionIdentifier

    func reloadExtension() async -> CallDirectoryErrorCode? {
        do {
            try await CXCallDirectoryManager.sharedInstance.reloadExtension(withIdentifier: extensionIdentifier)
            return nil
        } catch {
            let nsError = error as NSError
            return CallDirIdentifiers.errorCode(domain: nsError.domain, code: nsError.code)
        }
    }

    func isExtensionEnabled() async -> Bool? {
        guard let status = try? await CXCallDirectoryManager.sharedInstance.enabledStatusForExtension(withIdentifier: extensionIdentifier)
        else { return nil }
        switch status {
        case .enabled: return true
        case .disabled: return false
        default: return nil
        }
    }

    @MainActor
    func beginBackgroundTask() async -> Int {
        UIApplication.shared.beginBackgroundTask(withName: "calldir reload").rawValue
    }

    @MainActor
    func endBackgroundTask(_ token: Int) async {
        UIApplication.shared.endBackgroundTask(UIBackgroundTaskIdentifier(rawValue: token))
    }
}
#endif
