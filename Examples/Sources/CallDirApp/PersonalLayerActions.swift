import CallDirPatch
import CallDirReader
#if os(iOS)
import CallDirDevice
import CallDirShared
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
    /// time). Returns the expiry: after `loadAll`, schedule a load then
    /// (`allowForTwoHours` below does both), so the number is blocked again on time.
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

extension CallDirUpdater {
    /// "Allow for 2 hours" from the app's UI: writes the allowance, sends it (one incremental
    /// request: that number's entries leave the store), and returns when to load again (the
    /// expiry): on iOS, `scheduleExpiry` asks for a background task then.
    public func allowForTwoHours(_ number: String, actions: PersonalLayerActions, now: Int64) async throws -> Int64? {
        _ = try actions.allow(number, now: now)
        try await coordinator.loadAll()
        return try await coordinator.nextExpiry()
    }

    /// The user's contacts changed (or the app launched): publish their numbers for the
    /// extension and, if they differ from the last ones, send the change (only the changed
    /// entries). `source` is `ContactStoreSource()` on iOS.
    public func contactsChanged(_ source: some ContactsSource) async -> String? {
        do {
            let numbers = try coordinator.contactNumbers(from: source)
            if try await coordinator.publishContacts(numbers) { try await coordinator.loadAll() }
            return nil
        } catch {
            return "\(error)"
        }
    }
}

#if os(iOS)
/// Observes `CNContactStoreDidChangeNotification` (no diff comes with it: the updater re-reads
/// every contact and compares) and sends the change through the app's updater.
public final class ContactsObserver {
    private var token: NSObjectProtocol?

    public init(updater: CallDirUpdater) {
        token = NotificationCenter.default.addObserver(forName: .CNContactStoreDidChange, object: nil, queue: .main) { _ in
            Task { _ = await updater.contactsChanged(ContactStoreSource()) }
        }
    }

    deinit {
        if let token { NotificationCenter.default.removeObserver(token) }
    }
}

extension CallDirUpdater {
    /// Asks iOS to run a load not before `expiry` (Unix seconds), so an allowance can end
    /// while the app is not open (`CallDirBackgroundLoading`'s task runs `loadAll`, which sends
    /// the expiry). iOS runs it when it chooses, not on time: until a load runs (this task, the
    /// next launch's `resume()`, or any request of the extension, which reads the clock), the
    /// number still rings. Returns false when iOS refused the request.
    @discardableResult
    public static func scheduleExpiry(at expiry: Int64) -> Bool {
        CallDirBackgroundLoading.schedule(identifier: CallDirIdentifiers.backgroundLoad,
                                          at: Date(timeIntervalSince1970: TimeInterval(expiry)))
    }
}
#endif
