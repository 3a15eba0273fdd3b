#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import CallDirOptions
import CallDirNumbers
import CallDirReader

/// `--personal` and `--contacts`: the user's own layer on the phone (FORMAT.md, "Personal
/// layer"; docs/CALLKIT.md, "The user's layer"), shared by `simulate` and `lookup`.
struct PersonalOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The user's personal layer (allowed, blocked and labelled numbers; FORMAT.md) applied on top of the list.",
                               valueName: "file"), completion: .file())
    var personal: String?

    @Option(help: ArgumentHelp("A vCard file of the user's contacts: never blocked, never labelled by the list.", valueName: "file.vcf"), completion: .file())
    var contacts: String?

    /// The overlay at the current time, numbers read with `country` (the phone's region);
    /// nil when neither option is given.
    func overlay(country: CountryOption?) throws -> PersonalOverlay? {
        guard personal != nil || contacts != nil else { return nil }
        let normalizer = try NumberNormalizer(country: country?.code, region: country?.region)
        var layer = PersonalLayer()
        if let personal {
            guard let bytes = try SharedFolder(path: ".").read(personal, limit: 1 << 22) else {
                throw CallDirError(.io, "no such file", path: personal)
            }
            layer = try PersonalLayer(parsing: String(decoding: bytes, as: UTF8.self), normalizer: normalizer, path: personal)
        }
        var skipped = 0
        let numbers = try contacts.map { try VCardContacts(path: $0).numbers(normalizer: normalizer, skipped: &skipped) } ?? []
        return PersonalOverlay(layer: layer, contacts: numbers, now: Int64(time(nil)))
    }
}
