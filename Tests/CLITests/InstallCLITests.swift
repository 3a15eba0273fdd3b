import Foundation
import Testing

/// scripts/install into a temporary PREFIX (never a system path), from the build under test:
/// the three executables side by side, working; completions for three shells; man pages that
/// name every command and option the commands have today.
@Suite("scripts/install and the man pages")
struct InstallCLITests {
    static let root = CLI.packageRoot.path
    static let buildFolder = URL(fileURLWithPath: CLI.binary).deletingLastPathComponent().path

    /// Every subcommand and shown long option of `calldir` as swift-argument-parser describes it
    /// (`--experimental-dump-help`, what the generate-manual plugin reads).
    static func commandsAndOptions() throws -> (commands: [String], options: Set<String>) {
        let dump = try CLI.run(["--experimental-dump-help"])
        let object = try #require(JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        var commands: [String] = []
        var options: Set<String> = []
        func walk(_ command: [String: Any], path: [String]) {
            commands.append(path.joined(separator: "."))
            // Hidden options (former names such as --no-nanp-check) are in no help and no page.
            for argument in command["arguments"] as? [[String: Any]] ?? [] where argument["shouldDisplay"] as? Bool != false {
                for name in argument["names"] as? [[String: Any]] ?? [] where name["kind"] as? String == "long" {
                    options.insert("--" + (name["name"] as? String ?? ""))
                }
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                walk(sub, path: path + [sub["commandName"] as? String ?? "?"])
            }
        }
        walk(try #require(object["command"] as? [String: Any]), path: ["calldir"])
        return (commands, options)
    }

    @Test("docs/man has a page per command, naming every option the commands have (regenerate: scripts/gen-man)")
    func manPagesCurrent() throws {
        let (commands, options) = try Self.commandsAndOptions()
        #expect(commands.contains("calldir.compile") && commands.contains("calldir.lookup"))
        var text = ""
        for command in commands where !command.hasSuffix(".help") {
            let page = Self.root + "/docs/man/\(command).1"
            let body = try? String(contentsOfFile: page, encoding: .utf8)
            #expect(body != nil, "no man page \(page): run scripts/gen-man")
            text += body ?? ""
        }
        // mdoc writes an option as `Fl -name`, a hyphen-minus escaped or not.
        let plain = text.replacingOccurrences(of: "\\-", with: "-").replacingOccurrences(of: "Fl -", with: "--")
        let missing = options.filter { $0 != "--help" && $0 != "--version" && !plain.contains($0) }.sorted()
        #expect(missing.isEmpty, "options missing from docs/man: \(missing): run scripts/gen-man")
    }

    @Test("scripts/install --from BUILD PREFIX: executables side by side, completions, man pages; calldir works from PREFIX")
    func installIntoPrefix() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let prefix = scratch.file("prefix with space")
        let (status, stderr) = try runShell("'\(Self.root)/scripts/install' --from '\(Self.buildFolder)' '\(prefix)'")
        #expect(status == 0, "\(stderr)")
        for tool in ["calldir", "calldir-cli", "calldir-serve"] {
            #expect(FileManager.default.isExecutableFile(atPath: "\(prefix)/bin/\(tool)"), "\(tool)")
        }
        for (file, marker) in [("share/bash-completion/completions/calldir", "complete"), ("share/zsh/site-functions/_calldir", "#compdef"),
                               ("share/fish/vendor_completions.d/calldir.fish", "complete -c 'calldir'")] {
            let text = (try? String(contentsOfFile: "\(prefix)/\(file)", encoding: .utf8)) ?? ""
            #expect(text.contains(marker) && text.contains("compile"), "\(file)")
        }
        #expect(FileManager.default.fileExists(atPath: "\(prefix)/share/man/man1/calldir.1"))
        #expect(FileManager.default.fileExists(atPath: "\(prefix)/share/man/man1/calldir.compile.1"))
        // The installed front finds its siblings: a compile (calldir-cli) and a lookup.
        let list = scratch.write("b.txt", "+41212130911\n")
        let index = scratch.file("i.calldir")
        #expect(try CLI.run(["compile", "-q", "--block", list, "-o", index], binary: "\(prefix)/bin/calldir").status == 0)
        #expect(try CLI.run(["lookup", "--index", index, "+41212130911"], binary: "\(prefix)/bin/calldir").stdout == "+41212130911  blocked\n")
        let serveHelp = try CLI.run(["serve", "--help"], binary: "\(prefix)/bin/calldir")
        #expect(serveHelp.status == 0, "\(serveHelp.stderr)")
        let usage = try runShell("'\(Self.root)/scripts/install' --bogus")
        #expect(usage.0 == 64)
    }
}
