import CallDirReader
#if os(iOS)
import CallDirCallKit
import Contacts
import Foundation
#endif

/// The app side of the user's layer (docs/CALLKIT.md, "The user's layer"): the actions a user
/// takes on a blocked call, written to the personal layer in the App Group folder (atomically;
/// the extension reads it at its next request). Portable: on Linux it edits a folder.
public struct PersonalLayerActions: Sendable {
    public let folder: SharedFolder
    public let normalizer: NumberNormalizer

    /// `region`: the phone's calling code (33 for France), for numbers written nationally.
    public init(folder: SharedFolder, region: Int?) throws {
        self.folder = folder
        normalizer = try NumberNormalizer(country: region)
    }

    /// "Allow for 2 hours": an allowance of `number` that expires `seconds` after `now` (Unix
    /// time). Returns the expiry: schedule a reload then (`PersonalOverlay.nextExpiry` says
    /// the same to the extension), so the number is blocked again on time.
    public func allow(_ number: String, for seconds: Int64 = 2 * 3600, now: Int64) throws -> Int64 {
        var layer = try folder.readPersonalLayer(normalizer: normalizer)
        let expiry = now + seconds
        layer.allowed.append(.init(try range(number), expiry: expiry))
        try folder.writePersonalLayer(layer)
        return expiry
    }

    /// "Block this number" (or a `#` pattern) myself.
    public func block(_ numbers: String) throws {
        var layer = try folder.readPersonalLayer(normalizer: normalizer)
        layer.blocked.append(try range(numbers))
        try folder.writePersonalLayer(layer)
    }

    private func range(_ field: String) throws -> NumberRange {
        switch normalizer.normalize(field) {
        case .success(.number(let n)): return NumberRange(first: n, last: n)
        case .success(.range(let r)): return r
        case .failure(let reason): throw CallDirError(.badInput, "\(field): \(reason)")
        }
    }
}

#if os(iOS)
/// Reloads the extension when the user's contacts change: the next request sends only the
/// changed entries (`PersonalChange`). `reload` is the app's call into its updater.
public final class ContactsObserver {
    private var token: NSObjectProtocol?

    public init(reload: @escaping @Sendable () -> Void) {
        token = NotificationCenter.default.addObserver(forName: .CNContactStoreDidChange, object: nil, queue: .main) { _ in
            reload()
        }
    }

    deinit {
        if let token { NotificationCenter.default.removeObserver(token) }
    }
}
#endif
