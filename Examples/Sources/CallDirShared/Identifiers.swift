import CallDirReader

/// The identifiers an app and its extension agree on, and CallKit's error domain. Portable:
/// this file compiles on any platform (the test suite builds it on Linux).
public enum CallDirIdentifiers {
    /// Your App Group identifier (the folder app and extension share).
    public static let appGroup = "group.com.example.calldir"
    /// Your Call Directory extension's bundle identifier.
    public static let extensionIdentifier = "com.example.calldir.CallDirectory"
    /// The `BGProcessingTask` that finishes a long load (Info.plist
    /// `BGTaskSchedulerPermittedIdentifiers`).
    public static let backgroundLoad = "com.example.calldir.load"
    /// The phone's calling code for the user's layer (numbers written nationally in contacts
    /// and `personal.txt`): the app and the extension must agree (docs/CALLKIT.md, "The user's layer").
    public static let region = 33

    /// A CallKit error as the library names it: CallKit's domain gives its exact code, any
    /// other domain is `.unknown` (`CallDirectoryErrorCode(domain:code:)`).
    public static func errorCode(domain: String, code: Int) -> CallDirectoryErrorCode {
        CallDirectoryErrorCode(domain: domain, code: code)
    }
}
