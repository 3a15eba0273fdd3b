#if os(iOS)
import CallDirReader
import Foundation

/// The App Group container as the library's `SharedFolder` (index, previous index, pending and
/// committed records, all written atomically by the library).
public enum SharedFiles {
    public static func folder() -> SharedFolder {
        guard let url = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: CallDirIdentifiers.appGroup) else {
            fatalError("App Group \(CallDirIdentifiers.appGroup) is not configured for this target")
        }
        return SharedFolder(path: url.path)
    }
}
#endif
