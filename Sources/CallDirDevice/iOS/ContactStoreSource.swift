#if canImport(Contacts)
import CallDirReader
import Contacts

/// The user's contacts from `CNContactStore`: every phone number of every unified contact, as
/// written (`PersonalOverlay` takes them normalised with the phone's region:
/// `numbers(normalizer:skipped:)`). Needs the Contacts permission (`NSContactsUsageDescription`
/// in the app's Info.plist); without it, `forEachPhoneNumber` throws the store's error.
/// The app reads it (the extension never does): on `CNContactStoreDidChangeNotification`,
/// `coordinator.publishContacts(coordinator.contactNumbers(from: ContactStoreSource()))` writes
/// the numbers to the App Group folder, and `loadAll` sends only the changed entries when they
/// differ from the ones the device holds (docs/CALLKIT.md, "The user's layer").
public struct ContactStoreSource: ContactsSource {
    /// The store the contacts are read from.
    public let store: CNContactStore

    /// Reads `store` (the user's contacts unless another is given).
    public init(store: CNContactStore = CNContactStore()) {
        self.store = store
    }

    public func forEachPhoneNumber(_ body: (String) throws -> Void) throws {
        let request = CNContactFetchRequest(keysToFetch: [CNContactPhoneNumbersKey as CNKeyDescriptor])
        request.unifyResults = true
        var failure: Error?
        try store.enumerateContacts(with: request) { contact, stop in
            for labelled in contact.phoneNumbers {
                do {
                    try body(labelled.value.stringValue)
                } catch {
                    failure = error
                    stop.pointee = true
                    return
                }
            }
        }
        if let failure { throw failure }
    }
}
#endif
