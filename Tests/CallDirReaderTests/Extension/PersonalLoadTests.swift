import CallDirReader
import CallDirSimulator
import Foundation
import Testing
import TestSupport

@Suite("Personal layer on the device")
struct PersonalLoadTests {
    static let block = ["33162000000-33162000099", "33162000500", "33612345678"]
    static let identify = ["33162000000-33162000099,Telemarketing", "33162000200,Bank"]

    @Test("a contact inside a blocked range rings, and nothing else changed: one request removes just that number")
    func contactInsideBlockedRange() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let index = try buildIndex(folder, "fr.calldir", block: Self.block, identify: Self.identify)
        let simulator = CallKitSimulator()
        try loadFully(DeviceLoader(index: index), into: simulator)
        let before = DeviceState(simulator)
        #expect(before.blocking.contains(33_162_000_042) && before.identification[33_162_000_042] == "Telemarketing")

        // The user's dentist, written nationally in their contacts, is inside the blocked range.
        let vcf = folder.write("contacts.vcf", "BEGIN:VCARD\nVERSION:3.0\nFN:Dentist\nTEL:01 62 00 00 42\nEND:VCARD\n")
        var skipped = 0
        let contacts = try VCardContacts(path: vcf).numbers(normalizer: NumberNormalizer(country: 33), skipped: &skipped)
        let overlay = PersonalOverlay(layer: PersonalLayer(), contacts: contacts, now: 0)
        let change = try PersonalChange(index: index, from: PersonalOverlay(layer: PersonalLayer(), now: 0), to: overlay)
        #expect(change.count == 2)  // its blocking entry and its list label, nothing else
        simulator.beginRequest(systemSaysIncremental: true)
        #expect(simulator.isIncremental)
        change.feed(into: simulator)
        #expect(simulator.endRequest().succeeded)

        var after = before
        after.blocking.removeAll { $0 == 33_162_000_042 }
        after.identification[33_162_000_042] = nil
        #expect(DeviceState(simulator) == after)
        // A complete load of list ⊕ contacts (after a failure, or on a new phone) agrees, and the
        // range split in two still goes in ascending order within CallKit's rules.
        let fresh = CallKitSimulator()
        try loadFully(DeviceLoader(index: index, requestSize: 7, overlay: overlay), into: fresh)
        #expect(DeviceState(fresh) == after)
    }

    @Test("precedence: exception > personal block > personal label > list, in any request size")
    func precedence() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let index = try buildIndex(folder, "fr.calldir", block: Self.block, identify: Self.identify)
        let plain = CallKitSimulator()
        try loadFully(DeviceLoader(index: index), into: plain)
        let layer = PersonalLayer(
            allowed: [.init(NumberRange(first: 33_162_000_010, last: 33_162_000_019)),
                      .init(NumberRange(first: 33_162_000_500, last: 33_162_000_500), expiry: 100),
                      .init(NumberRange(first: 33_612_345_678, last: 33_612_345_678), expiry: 10)],
            blocked: [NumberRange(first: 33_162_000_015, last: 33_162_000_120), NumberRange(first: 33_700_000_000, last: 33_700_000_000)],
            labels: [.init(NumberRange(first: 33_162_000_050, last: 33_162_000_059), text: "Shop"),
                     .init(NumberRange(first: 33_162_000_200, last: 33_162_000_200), text: "My bank")])
        for size in [1, 3, 64, 10_000] {
            let simulator = CallKitSimulator()
            let overlay = PersonalOverlay(layer: layer, contacts: [33_162_000_099], now: 50)
            try loadFully(DeviceLoader(index: index, requestSize: size, overlay: overlay), into: simulator)
            let expected = expectedStore(list: DeviceState(plain), layer: layer, contacts: [33_162_000_099], now: 50)
            #expect(DeviceState(simulator) == expected, "request size \(size)")
            #expect(simulator.history.allSatisfy { $0.succeeded && $0.adds <= size })
            #expect(overlay.nextExpiry == 100)
        }
    }
}
