#if os(iOS)
import CallDirReader
import Foundation

/// Where the app and its Call Directory extension share files: the App Group container. The
/// files themselves (index, previous index, pending and committed records) and how they are
/// written are `SharedFolder`'s, in the library. Add this file to both targets.
enum SharedFiles {
    static let appGroup = "group.com.example.calldir"  // your App Group identifier

    static func folder() -> SharedFolder {
        guard let url = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: appGroup) else {
            fatalError("App Group \(appGroup) is not configured for this target")
        }
        return SharedFolder(path: url.path)
    }
}
#endif
