#if os(iOS)
import CallDirCallKit
import CallDirReader

/// The App Group container as the library's `SharedFolder` (index, previous index, the load
/// records, all written atomically by the library).
public enum SharedFiles {
    /// Throws a `.usage` error naming the fix when this target lacks the App Group.
    public static func folder() throws -> SharedFolder {
        try CallDirectoryRequestHandler.folder(appGroup: CallDirIdentifiers.appGroup)
    }
}
#endif
