#if canImport(CallKit)
import Foundation

/// The files the app and its Call Directory extension share in their App Group container:
/// the index the app downloads or bundles, and the two checkpoints of the loading protocol
/// (README, "Loading a Call Directory extension"). Add this file to both targets.
struct SharedFiles {
    static let appGroup = "group.com.example.calldir"  // your App Group identifier

    let folder: URL

    init() {
        guard let folder = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: Self.appGroup) else {
            fatalError("App Group \(Self.appGroup) is not configured for this target")
        }
        self.folder = folder
    }

    /// The compiled index. Replace it atomically (write elsewhere, then rename): a new index has
    /// a new checksum, so the next load starts over by itself.
    var index: URL { folder.appendingPathComponent("index.calldir") }

    /// The index the device held before the current one: to install a new index, rename the
    /// current one here first, then publish the new one. The extension then sends only the
    /// changes (an update) when the committed checkpoint says the device holds this one
    /// completely. The app deletes it once a load or update is finished.
    var previousIndex: URL { folder.appendingPathComponent("previous.calldir") }

    /// Written by the extension after feeding a request; committed or discarded by the app.
    static let pending = "checkpoint.pending"
    /// Progress the device is known to hold: written only by the app, after success.
    static let committed = "checkpoint.committed"

    func read(_ name: String) -> [UInt8]? {
        (try? Data(contentsOf: folder.appendingPathComponent(name))).map { [UInt8]($0) }
    }

    func write(_ name: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: folder.appendingPathComponent(name), options: .atomic)
    }

    func remove(_ name: String) {
        try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
    }
}
#endif
