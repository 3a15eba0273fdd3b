/// What the app and its extension both need to resolve the user's layer the same way: the
/// phone's region (for numbers written nationally) and the clock (allowances expire).
public struct PersonalSettings: Sendable {
    /// Reads the user's numbers as the phone's region writes them.
    public let normalizer: NumberNormalizer
    /// Unix seconds now; tests give their own.
    public let clock: @Sendable () -> Int64

    /// `region`: the phone's calling code (33 for France), nil for international numbers
    /// only; `clock`: Unix seconds now (nil: the system's wall clock).
    public init(region: Int?, clock: (@Sendable () -> Int64)? = nil) throws {
        normalizer = try NumberNormalizer(country: region)
        self.clock = clock ?? { Syscalls.unixTime() }
    }
}

/// The user's layer in the App Group folder (docs/CALLKIT.md, "The user's layer"):
/// - `personal.txt`: the user's rules (`PersonalLayer`), written by the app;
/// - `contacts.vcf`: the contacts' numbers as the app last read them (`ContactStoreSource`),
///   normalised, one `TEL:+E164` each: the extension reads them here, so it needs no Contacts
///   permission and resolves exactly the numbers the app saw;
/// - `overlay-DIGEST.txt`: each overlay a load applied (`PersonalOverlay.resolvedLayer`), kept
///   while the device may hold it: the base from which a change of the layer is sent.
extension SharedFolder {
    /// Where the app leaves the contacts' numbers for the extension (`contacts.vcf`).
    public var contactsPath: String { layerPath + "/contacts.vcf" }

    /// Where the overlay of `digest` is kept (16 hex digits).
    public func heldOverlayPath(_ digest: UInt64) -> String {
        path + "/overlay-" + hex(UInt32(digest >> 32)) + hex(UInt32(truncatingIfNeeded: digest)) + ".txt"
    }

    /// Publishes the contacts' numbers (normalised) atomically; returns false when the file
    /// already held them (nothing to load).
    @discardableResult
    public func writeContacts(_ numbers: [Int64]) throws -> Bool {
        var text = "BEGIN:VCARD\nVERSION:4.0\nFN:calldir contacts\n"
        for n in Set(numbers).sorted() { text += "TEL:+\(n)\n" }
        text += "END:VCARD\n"
        let bytes = Array(text.utf8)
        if (try? read(contactsPath, limit: VCardContacts.sizeLimit)) == bytes { return false }
        try writeAtomically(bytes, to: contactsPath)
        return true
    }

    /// The user's layer and contacts in the folder, resolved at `settings`' clock.
    public func currentOverlay(_ settings: PersonalSettings) throws -> PersonalOverlay {
        let layer = try readPersonalLayer(normalizer: settings.normalizer)
        var skipped = 0
        let contacts = exists(contactsPath) ? try VCardContacts(path: contactsPath).numbers(normalizer: settings.normalizer, skipped: &skipped) : []
        return PersonalOverlay(layer: layer, contacts: contacts, now: settings.clock())
    }

    /// Keeps `overlay` as a held overlay (once per digest; atomic).
    func keepHeldOverlay(_ overlay: PersonalOverlay) throws {
        let file = heldOverlayPath(overlay.digest)
        if overlay.isEmpty || exists(file) { return }
        try writeAtomically(Array(overlay.resolvedLayer.text.utf8), to: file)
    }

    /// The held overlay of `digest`: the empty one for 0; nil when missing, unreadable, or not
    /// the overlay its name says (then a change cannot be computed: load completely).
    public func heldOverlay(_ digest: UInt64) -> PersonalOverlay? {
        guard digest != 0 else { return PersonalOverlay(layer: PersonalLayer(), now: 0) }
        guard let bytes = try? read(heldOverlayPath(digest), limit: 1 << 26),
              let normalizer = try? NumberNormalizer(),
              let layer = try? PersonalLayer(parsing: String(decoding: bytes, as: UTF8.self), normalizer: normalizer) else { return nil }
        let overlay = PersonalOverlay(layer: layer, now: 0)
        return overlay.digest == digest ? overlay : nil
    }

    /// Removes the held overlays but those of `kept` (what the committed checkpoint names).
    public func removeHeldOverlays(keeping kept: Set<UInt64>) {
        let keep = Set(kept.map { heldOverlayPath($0) })
        for name in Syscalls.folderEntries(path) where name.hasPrefix("overlay-") && name.hasSuffix(".txt") {
            let file = path + "/" + name
            if !keep.contains(file) { try? remove(file) }
        }
    }
}
