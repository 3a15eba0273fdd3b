#if canImport(CallKit)
import CallDirReader
import CallKit
import Foundation

// The whole adapter. Not `@retroactive`: the protocol is this package's (CallDirReader), and Swift
// refuses the attribute for a protocol declared in the same package.
extension CXCallDirectoryExtensionContext: CallDirectoryContext {}

/// What a Call Directory extension's principal class delegates to: it opens the App Group
/// folder (a clear error when the target lacks the App Group), runs one request of the loading
/// protocol (`CallDirectoryExtensionRequest`), completes it (empty before the first install),
/// or fails it with the reason. Your principal class, in full:
///
///     final class CallDirectoryHandler: CXCallDirectoryProvider, CXCallDirectoryExtensionContextDelegate {
///         let handler = CallDirectoryRequestHandler(appGroup: "group.com.example.calldir", region: 33)
///         override func beginRequest(with context: CXCallDirectoryExtensionContext) {
///             context.delegate = self
///             handler.beginRequest(with: context)
///         }
///         func requestFailed(for extensionContext: CXCallDirectoryExtensionContext, withError error: any Error) {
///             handler.requestFailed()
///         }
///     }
///
/// With one list over several extensions (`calldir shard`, docs/CALLKIT.md "Several
/// extensions"), every extension target compiles this same class with `sharded: true`: each
/// serves the shard its own bundle identifier names (`shards/<bundle id>/` in the App Group).
public final class CallDirectoryRequestHandler: @unchecked Sendable {  // `current` is guarded by `lock`
    /// The App Group the app and the extension share (`group.com.example.calldir`).
    public let appGroup: String
    /// The shard this extension serves (its bundle identifier), nil when it loads the whole list.
    public let shard: String?
    /// Entries per request (`DeviceLoader.defaultRequestSize` unless given).
    public let requestSize: Int
    /// The phone's calling code for the user's layer (`personal.txt` and `contacts.vcf` in the
    /// folder, docs/CALLKIT.md "The user's layer"); the app's `ReloadCoordinator` must be given
    /// the same. Nil: no layer, the list alone.
    public let personal: PersonalSettings?
    private let lock = NSLock()
    private var current: CallDirectoryExtensionRequest?

    /// `region`: the phone's calling code (e.g. 33), which enables the user's layer; give the
    /// app's coordinator the same (`PersonalSettings(region:)`). `sharded`: serve the shard of
    /// this extension's bundle identifier (`Bundle.main.bundleIdentifier`).
    public init(appGroup: String, sharded: Bool = false, requestSize: Int = DeviceLoader.defaultRequestSize, region: Int? = nil,
                usesPersonalLayer: Bool = true) {
        self.appGroup = appGroup
        shard = sharded ? Bundle.main.bundleIdentifier ?? "" : nil  // "": refused by `folder(appGroup:shard:)`
        self.requestSize = requestSize
        personal = usesPersonalLayer ? try? PersonalSettings(region: region) : nil
    }

    /// The App Group folder app and extension share, or the folder of `shard` in it (created
    /// when missing: the system may run the extension before the app installed anything);
    /// throws a `.usage` error naming the fix when this target has no such App Group.
    public static func folder(appGroup: String, shard: String? = nil) throws -> SharedFolder {
        let root = try SharedFolder(appGroup: appGroup,
                                    containerPath: FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: appGroup)?.path)
        guard let shard else { return root }
        let folder = try root.shard(shard)
        try folder.create()
        return folder
    }

    /// Call from the principal class's `beginRequest(with:)`: feeds one request of the loading
    /// protocol and completes it, or cancels it with the reason (CallKit then empties the store).
    public func beginRequest(with context: CXCallDirectoryExtensionContext) {
        do {
            let request = CallDirectoryExtensionRequest(folder: try Self.folder(appGroup: appGroup, shard: shard), requestSize: requestSize, personal: personal)
            lock.lock()
            current = request
            lock.unlock()
            _ = try request.run(into: context)  // nil: no index installed yet; the request completes empty
            context.completeRequest { expired in request.completed(expired: expired) }
        } catch {
            // A damaged index, a record that cannot be written, the App Group missing, or a
            // request the host already failed: CallKit deletes every entry; the under-way
            // record tells the app to start over.
            context.cancelRequest(withError: error)
        }
    }

    /// Call from `requestFailed(for:withError:)`: feeding stops.
    public func requestFailed() {
        lock.lock()
        let request = current
        lock.unlock()
        request?.stop()
    }
}
#endif
