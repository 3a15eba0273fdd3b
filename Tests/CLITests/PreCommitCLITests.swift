import Foundation
import Testing

/// The pre-commit hooks of `.pre-commit-hooks.yaml` (issue 27), run by pre-commit itself in a
/// scratch git repository, offline. Skipped, saying so, where pre-commit is not installed
/// (`scripts/setup` installs it from PyPI).
@Suite("pre-commit hooks")
struct PreCommitCLITests {
    static let preCommit: String? = {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let path = "\(folder)/pre-commit"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }()

    static let gitExists = FileManager.default.isExecutableFile(atPath: "/usr/bin/git")

    static let swiss: String? = {
        let path = CLI.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/realdata/swiss-spam-numbers.txt").path
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }()

    /// Runs `arguments` in `folder`; returns the status and stdout and stderr together.
    @discardableResult
    static func run(_ arguments: [String], in folder: String, environment: [String: String] = [:]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// A git repository in `scratch` holding lists/spam.txt: the real Swiss list (or a small
    /// one) with a bad row at line 100 when `bad`.
    static func makeRepository(in folder: String, bad: Bool, config: String) throws -> String {
        let repo = folder + "/lists-repo"
        try FileManager.default.createDirectory(atPath: repo + "/lists", withIntermediateDirectories: true)
        var lines = try swiss.map { try String(contentsOfFile: $0, encoding: .utf8).split(separator: "\n").map(String.init) }
            ?? (0..<200).map { "+4121560\(1000 + $0)" }
        if bad { lines.insert("+41 21 abc", at: 99) }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: repo + "/lists/spam.txt"))
        try Data(config.utf8).write(to: URL(fileURLWithPath: repo + "/.pre-commit-config.yaml"))
        for command in [["git", "init", "-q"], ["git", "add", "-A"]] {
            let (status, output) = try run(command, in: repo)
            #expect(status == 0, "\(command): \(output)")
        }
        return repo
    }

    @Test("a local hook running calldir compile --check: a bad list fails naming the row, the fixed list passes",
          .enabled(if: preCommit != nil && gitExists, "pre-commit (PyPI) or git is not installed: skipped; scripts/setup installs pre-commit"))
    func badAndFixedList() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        // The shipped hook's entry, files and args, with calldir by its path (no network, no PATH).
        let config = """
        repos:
          - repo: local
            hooks:
              - id: calldir-check
                name: calldir compile --check
                entry: \(CLI.binary) compile --check --quiet
                language: system
                args: [--sort, --dedupe, --block]
                files: \\.(txt|csv|tsv|json|plist|vcf)(\\.gz)?$
                require_serial: true

        """
        let environment = ["PRE_COMMIT_HOME": scratch.file("cache"), "TMPDIR": scratch.path]
        let repo = try Self.makeRepository(in: scratch.path, bad: true, config: config)
        let (failed, output) = try Self.run([Self.preCommit!, "run", "--all-files"], in: repo, environment: environment)
        #expect(failed == 1, "\(output)")
        #expect(output.contains("lists/spam.txt:100: '+41 21 abc' rejected"), "\(output)")
        #expect(output.contains("Failed"))

        let fixed = try Self.makeRepository(in: scratch.file("fixed"), bad: false, config: config)
        let (passed, clean) = try Self.run([Self.preCommit!, "run", "--all-files"], in: fixed, environment: environment)
        #expect(passed == 0, "\(clean)")
        #expect(clean.contains("Passed"))
        // Nothing left beside the list: --check writes no index.
        let (_, status) = try Self.run(["git", "status", "--porcelain", "--ignored", "--untracked-files=all"], in: fixed)
        let stray = status.split(separator: "\n").filter { $0.hasPrefix("??") || $0.hasPrefix("!!") }
        #expect(stray.isEmpty, "left in the repository: \(stray)")
    }

    @Test("the shipped hooks print names a user tells apart: distinct, neither the start of the other")
    func distinctHookNames() throws {
        let manifest = try String(contentsOfFile: CLI.packageRoot.path + "/.pre-commit-hooks.yaml", encoding: .utf8)
        let names = manifest.split(separator: "\n").filter { $0.hasPrefix("  name: ") }.map { String($0.dropFirst("  name: ".count)) }
        #expect(names.count == 2)
        for a in names { for b in names where a != b { #expect(!b.hasPrefix(a), "'\(a)' starts '\(b)'") } }
        #expect(Set(names).count == names.count, "\(names)")
    }

    @Test("the shipped .pre-commit-hooks.yaml is a valid manifest, and its calldir-check hook runs by try-repo",
          .enabled(if: preCommit != nil && gitExists, "pre-commit (PyPI) or git is not installed: skipped; scripts/setup installs pre-commit"))
    func shippedManifest() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let root = CLI.packageRoot.path
        let (valid, output) = try Self.run([Self.preCommit!, "validate-manifest", ".pre-commit-hooks.yaml"], in: root)
        #expect(valid == 0, "\(output)")
        // try-repo clones a repository: a clone of the hooks file alone, so it needs no network.
        let hooks = scratch.file("hooks")
        try FileManager.default.createDirectory(atPath: hooks, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: root + "/.pre-commit-hooks.yaml", toPath: hooks + "/.pre-commit-hooks.yaml")
        for command in [["git", "init", "-q"], ["git", "add", "-A"],
                        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "hooks"]] {
            let (status, out) = try Self.run(command, in: hooks)
            #expect(status == 0, "\(command): \(out)")
        }
        let repo = try Self.makeRepository(in: scratch.path, bad: true, config: "repos: []\n")
        let binFolder = URL(fileURLWithPath: CLI.binary).deletingLastPathComponent().path
        let environment = ["PRE_COMMIT_HOME": scratch.file("cache"), "TMPDIR": scratch.path,
                           "PATH": binFolder + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")]
        let (status, tried) = try Self.run([Self.preCommit!, "try-repo", hooks, "calldir-check", "--all-files"], in: repo,
                                           environment: environment)
        #expect(status == 1, "\(tried)")
        #expect(tried.contains("lists/spam.txt:100: '+41 21 abc' rejected"), "\(tried)")
    }
}
