import ArgumentParser
import CallDir
import CallDirLookup
import CallDirReader
import CallDirWriter

struct ShardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shard",
        abstract: "Split a compiled list over several Call Directory extensions.",
        discussion: """
        Each Call Directory extension is one switch in Settings and one store: a failed \
        request wipes that extension's entries and no other's. `shard` writes one index per \
        extension (shard-1.calldir, shard-2.calldir...) and their manifest, DIR/shards.json \
        (FORMAT.md, "Shard manifest"), which names each shard's extension, numbers, kinds, \
        entries and checksum. Shards are published before the manifest, each atomically.

          --by kind   blocking in shard 1, identification in shard 2
          --by size   contiguous number intervals of at most --max-entries
                      device entries each (both kinds counted); ranges are
                      cut where needed, a number is never split
          --by category
                      one shard per --category NAME=INDEX, each an index
                      compiled from that category's own inputs, so the user
                      switches categories on and off in Settings; categories
                      may share numbers

        Extension N is PREFIX.N, a category's PREFIX.NAME (--extension-prefix): the bundle \
        identifiers of your extension targets (docs/CALLKIT.md, "Several extensions").

        Exit status: 0 written; 1 the index is damaged; 2 it cannot be read or the folder \
        written; 64 bad usage.

        Examples:
          calldir shard --index fr.calldir --by size --max-entries 2000000 \\
            --extension-prefix com.example.Blocker -o shards/
          calldir shard --index list.calldir --by kind \\
            --extension-prefix com.example.Blocker -o shards/
          calldir shard --by category --category scam=scam.calldir \\
            --category survey=survey.calldir --extension-prefix com.example.Blocker -o shards/
        """
    )

    enum Rule: String, ExpressibleByArgument, CaseIterable { case kind, size, category }

    @Option(help: ArgumentHelp("The index to split (default: $CALLDIR_INDEX or ~/.local/share/calldir/index.calldir).", valueName: "file"), completion: .file())
    var index: String?

    @Option(help: ArgumentHelp("How to split: kind, size or category.", valueName: "rule"))
    var by: Rule

    @Option(help: ArgumentHelp("With --by category: a category's name (letters, digits, '-') and its compiled index; repeat per category.",
                               valueName: "name=file"), completion: .file())
    var category: [String] = []

    @Option(name: .customLong("max-entries"), help: ArgumentHelp("With --by size: the most device entries a shard holds (2 or more).", valueName: "n"))
    var maxEntries: Int64?

    @Option(name: .customLong("extension-prefix"), help: ArgumentHelp("Bundle identifier prefix of the extensions: shard N is PREFIX.N.", valueName: "id"))
    var extensionPrefix: String

    @Option(name: [.customShort("o"), .customLong("output")], help: ArgumentHelp("The folder to write the shards and shards.json into (made if absent; its parent must exist).", valueName: "dir"), completion: .directory)
    var output: String

    @Option(help: ArgumentHelp("Where labels spill while a shard is written.", valueName: "dir"), completion: .directory)
    var tmpdir = "/tmp"

    @Flag(help: "Print the manifest (JSON) instead of a table.")
    var json = false

    func validate() throws {
        switch (by, maxEntries) {
        case (.size, nil): throw ValidationError("--by size needs --max-entries N: the most entries one extension holds.")
        case (.size, let n?) where n < 2: throw ValidationError("--max-entries must be 2 or more (a number blocked and labelled is 2 entries).")
        case (.kind, _?): throw ValidationError("--max-entries goes with --by size; --by kind makes one shard per kind.")
        default: break
        }
        switch (by, category.isEmpty, index) {
        case (.category, true, _): throw ValidationError("--by category needs --category NAME=INDEX, once per category.")
        case (.category, false, _?): throw ValidationError("--by category takes its indexes from --category, not --index.")
        case (.kind, false, _), (.size, false, _): throw ValidationError("--category goes with --by category.")
        default: break
        }
        let names = try categories().map(\.name)
        guard Set(names).count == names.count else { throw ValidationError("each --category needs a name of its own: \(names)") }
        guard SharedFolder.isBundleIdentifier(extensionPrefix) else {
            throw ValidationError("--extension-prefix is a bundle identifier prefix, like com.example.Blocker.")
        }
    }

    /// The `--category` values as names and paths.
    func categories() throws -> [(name: String, path: String)] {
        try category.map { value in
            let parts = value.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[1].isEmpty, !parts[0].isEmpty, !parts[0].contains("."),
                  SharedFolder.isBundleIdentifier(parts[0]) else {
                throw ValidationError("--category \(value): give NAME=INDEX, NAME of letters, digits and '-' (it ends the extension's bundle identifier).")
            }
            return (parts[0], parts[1])
        }
    }

    func run() throws {
        let categories = try categories()  // checked by validate()
        let path = by == .category ? categories.map(\.path).joined(separator: ", ") : index ?? DefaultIndex.path
        if case .failure(let error) = Syscalls.makeFolder(output) {
            throw Terminal.fail(CallDirError(.io, "cannot make the folder: \(error.text)", path: output))
        }
        do {
            let manifest: ShardManifest
            if by == .category {
                let indexes = try categories.map { ($0.name, try CallDirIndex(path: $0.path, verify: true)) }
                manifest = try ShardWriter.write(categories: indexes, extensionPrefix: extensionPrefix, folder: output, temporaryFolder: tmpdir)
            } else {
                let source = try CallDirIndex(path: path, verify: true)
                manifest = try ShardWriter.write(source, rule: by == .kind ? .kind : .size, maxEntries: maxEntries ?? 0,
                                                 extensionPrefix: extensionPrefix, folder: output, temporaryFolder: tmpdir)
            }
            var out = StdoutBuffer()
            if json {
                out.write(String(decoding: manifest.encoded, as: UTF8.self))
            } else {
                for shard in manifest.shards {
                    let numbers = shard.numbers.first == 0 && shard.numbers.last == Int64.max ? "every number"
                        : "\(shard.numbers.first)-\(shard.numbers.last)"
                    out.write("\(shard.file)  \(shard.extensionIdentifier)  \(shard.kindsText)  \(numbers)  "
                              + counted(shard.deviceEntries, "entry", "entries") + "\n")
                }
                out.write("wrote \(counted(manifest.shards.count, "shard")) and \(output)/shards.json from \(path) "
                          + "(\(counted(manifest.sourceEntries, "entry", "entries")))\n")
            }
            guard out.close() else { throw ExitCode(.error) }
        } catch let error as CallDirError {
            throw Terminal.fail(error, negative: [.corruptIndex, .unsupportedVersion])
        }
    }
}

extension ShardManifest.Shard {
    /// The kinds its extension loads, as `shard` and `simulate --shards` print them.
    var kindsText: String {
        [blocking ? "blocking" : nil, identification ? "identification" : nil].compactMap { $0 }.joined(separator: "+")
    }
}
