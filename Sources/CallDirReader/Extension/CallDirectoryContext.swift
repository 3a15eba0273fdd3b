/// What a Call Directory extension is handed by CallKit, with CallKit's exact names, so that
/// on iOS one line adapts the real thing (in the product `CallDirCallKit`):
///
///     extension CXCallDirectoryExtensionContext: CallDirectoryContext {}
///
/// `DeviceLoader` feeds any conforming type; `CallKitSimulator` is a strict one for tests.
/// Numbers are `CXCallDirectoryPhoneNumber` (`Int64`): E.164 digits without '+'.
public protocol CallDirectoryContext: AnyObject {
    /// True when this request may send only changes. Reading it is what makes a request
    /// incremental: a request that never reads it (or reads false) replaces every entry.
    var isIncremental: Bool { get }
    /// Adds a blocking entry; numbers ascend within a request.
    func addBlockingEntry(withNextSequentialPhoneNumber phoneNumber: Int64)
    /// Adds an identification entry; numbers ascend within a request.
    func addIdentificationEntry(withNextSequentialPhoneNumber phoneNumber: Int64, label: String)
    /// Removes a blocking entry (incremental requests only).
    func removeBlockingEntry(withPhoneNumber phoneNumber: Int64)
    /// Removes every blocking entry (incremental requests only).
    func removeAllBlockingEntries()
    /// Removes an identification entry (incremental requests only).
    func removeIdentificationEntry(withPhoneNumber phoneNumber: Int64)
    /// Removes every identification entry (incremental requests only).
    func removeAllIdentificationEntries()
}

/// The two kinds of Call Directory entries. Order is checked per kind, the cap counts both.
public enum DeviceEntryKind: String, Sendable, CaseIterable {
    /// Numbers the phone blocks.
    case blocking
    /// Numbers the phone labels.
    case identification
}

/// A complete request replaces everything the device holds (even when it adds nothing); an
/// incremental one changes what earlier requests stored.
public enum RequestKind: String, Sendable {
    /// Replaces every entry.
    case complete
    /// Sends only changes.
    case incremental
}

/// CallKit's error codes in the domain `com.apple.CallKit.error.calldirectorymanager`
/// (`CXErrorCodeCallDirectoryManagerError`), exactly as Apple numbers them. Code 0 and any
/// code not listed (102 has been seen in the field) are `.unknown(code)`.
public enum CallDirectoryErrorCode: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// A code this library does not know.
    case unknown(Int)
    /// 1: no such extension.
    case noExtensionFound              // 1
    /// 2: the extension stopped before completing (in practice it was killed, for memory).
    case loadingInterrupted            // 2: in practice the extension was killed (memory)
    /// 3: numbers did not ascend.
    case entriesOutOfOrder             // 3
    /// 4: a number repeated (or 0).
    case duplicateEntries              // 4: a repeat, or 0
    /// 5: more entries than a request may add.
    case maximumEntriesExceeded        // 5: the 2,000,000th entry of a request
    /// 6: the user has not enabled the extension.
    case extensionDisabled             // 6
    /// 7: another load is under way.
    case currentlyLoading              // 7
    /// 8: a removal in a complete request.
    case unexpectedIncrementalRemoval  // 8: a remove in a complete request

    /// The case for CallKit's numeric code.
    public init(code: Int) {
        switch code {
        case 1: self = .noExtensionFound
        case 2: self = .loadingInterrupted
        case 3: self = .entriesOutOfOrder
        case 4: self = .duplicateEntries
        case 5: self = .maximumEntriesExceeded
        case 6: self = .extensionDisabled
        case 7: self = .currentlyLoading
        case 8: self = .unexpectedIncrementalRemoval
        default: self = .unknown(code)
        }
    }

    /// CallKit's numeric code.
    public var code: Int {
        switch self {
        case .unknown(let code): return code
        case .noExtensionFound: return 1
        case .loadingInterrupted: return 2
        case .entriesOutOfOrder: return 3
        case .duplicateEntries: return 4
        case .maximumEntriesExceeded: return 5
        case .extensionDisabled: return 6
        case .currentlyLoading: return 7
        case .unexpectedIncrementalRemoval: return 8
        }
    }

    /// CallKit's name for the code, as error messages show it.
    public var name: String {
        switch self {
        case .unknown: return "unknown"
        case .noExtensionFound: return "noExtensionFound"
        case .loadingInterrupted: return "loadingInterrupted"
        case .entriesOutOfOrder: return "entriesOutOfOrder"
        case .duplicateEntries: return "duplicateEntries"
        case .maximumEntriesExceeded: return "maximumEntriesExceeded"
        case .extensionDisabled: return "extensionDisabled"
        case .currentlyLoading: return "currentlyLoading"
        case .unexpectedIncrementalRemoval: return "unexpectedIncrementalRemoval"
        }
    }

    public var description: String { "CallKit error \(code) (\(name))" }

    /// `CXErrorCodeCallDirectoryManagerError.errorDomain`.
    public static let domain = "com.apple.CallKit.error.calldirectorymanager"

    /// An `NSError`'s domain and code as CallKit's code: CallKit's domain gives its exact
    /// code, any other domain is `.unknown`.
    public init(domain: String, code: Int) {
        self = domain == Self.domain ? Self(code: code) : .unknown(code)
    }
}

/// Facts of CallKit's loading that the loader and the simulator share.
public enum CallKitLimits {
    /// Entries per request, both kinds together; the 2,000,000th add fails the request.
    public static let maxEntriesPerRequest = 1_999_999
    /// Entries a device stores per second, as app developers measured it (iOS 26: 1,999,999
    /// entries in about 9 s). Only an estimate: Apple publishes no figure.
    public static let measuredEntriesPerSecond = 220_000
}
