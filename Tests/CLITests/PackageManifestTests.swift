import CompileSupport
import Foundation
import Testing

/// An app must be able to depend on a release of calldir: SwiftPM and Xcode refuse a product
/// whose targets (or their dependencies) carry unsafe flags when it comes from a versioned
/// dependency. This reads the manifest as a dependent's build does (no CALLDIR_STATIC_LINK)
/// through `swift package dump-package`, and fails if any product reaches an unsafe flag.
@Suite("Package manifest")
struct PackageManifestTests {
    static func dump(environment extra: [String: String]) throws -> [String: Any] {
        let scratch = TempFolder()
        defer { scratch.remove() }
        // A scratch path of its own: the package's .build is locked by the running `swift test`.
        // CALLDIR_STATIC_LINK unset unless `extra` sets it: a dependent's build never has it.
        let unset = extra["CALLDIR_STATIC_LINK"] == nil ? "-u CALLDIR_STATIC_LINK " : ""
        let (status, output) = try runBash("env \(unset)swift package --package-path '\(CLI.packageRoot.path)' "
                                           + "--scratch-path '\(scratch.path)' dump-package", environment: extra)
        try #require(status == 0, "swift package dump-package failed")
        let data = Data(output.utf8)
        return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// Each product's targets and every target they depend on in this package, with the kinds
    /// of their settings that are unsafe flags.
    static func unsafeFlags(_ manifest: [String: Any]) -> [String: [String]] {
        let targets = (manifest["targets"] as? [[String: Any]]) ?? []
        var byName: [String: [String: Any]] = [:]
        for target in targets { if let name = target["name"] as? String { byName[name] = target } }
        func dependencies(_ target: [String: Any]) -> [String] {
            ((target["dependencies"] as? [[String: Any]]) ?? []).compactMap { dependency in
                if let byName = dependency["byName"] as? [Any], let name = byName.first as? String { return name }
                if let target = dependency["target"] as? [Any], let name = target.first as? String { return name }
                return nil  // a product of another package
            }
        }
        var found: [String: [String]] = [:]
        for product in (manifest["products"] as? [[String: Any]]) ?? [] {
            let name = product["name"] as? String ?? "?"
            var queue = (product["targets"] as? [String]) ?? []
            var seen = Set<String>()
            while let next = queue.popLast() {
                guard seen.insert(next).inserted, let target = byName[next] else { continue }
                for setting in (target["settings"] as? [[String: Any]]) ?? [] {
                    if let kind = setting["kind"] as? [String: Any], kind["unsafeFlags"] != nil {
                        found[name, default: []].append("\(next): \(kind["unsafeFlags"]!)")
                    }
                }
                queue += dependencies(target)
            }
        }
        return found
    }

    @Test("no product's targets carry unsafe flags as a dependent reads the manifest; CALLDIR_STATIC_LINK=1 adds them to the executables only")
    func noUnsafeFlags() throws {
        let plain = try Self.dump(environment: [:])
        #expect(((plain["products"] as? [Any]) ?? []).count >= 6)
        #expect(Self.unsafeFlags(plain).isEmpty, "\(Self.unsafeFlags(plain))")
        // The check itself sees flags when they are there: the static-link switch of the scripts.
        let linked = Self.unsafeFlags(try Self.dump(environment: ["CALLDIR_STATIC_LINK": "1"]))
        #expect(Set(linked.keys) == ["calldir", "calldir-cli", "calldir-serve"], "\(linked)")
    }
}
