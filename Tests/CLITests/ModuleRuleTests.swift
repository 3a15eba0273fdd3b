import Foundation
import Testing
import TestSupport

/// The dependency rule of docs/MODULES.md ("which module may import which"), read from that
/// file's table and checked against every `import` under `Sources/<Target>/` and every target
/// dependency in `Package.swift`, and against what each target reaches through them.
@Suite("Module dependency rule")
struct ModuleRuleTests {
    static let docPath = packageRoot.appendingPathComponent("docs/MODULES.md").path
    static let manifestPath = packageRoot.appendingPathComponent("Package.swift").path
    static let sourcesPath = packageRoot.appendingPathComponent("Sources").path

    @Test("every import and target dependency is one its row of docs/MODULES.md allows; no target reaches what it must not; every target has a row")
    func packageKeepsTheRule() throws {
        let rule = try ModuleRule(markdown: String(contentsOfFile: Self.docPath, encoding: .utf8))
        #expect(rule.rows.count >= 15, "expected the table of docs/MODULES.md, found \(rule.rows.count) rows")
        #expect(rule.rows["CallDirServer"]?.neverReach.contains("CallDir") == true, "the daemon must not link the compiler")
        let manifest = try String(contentsOfFile: Self.manifestPath, encoding: .utf8)
        let targets = ModuleRule.targets(inManifest: manifest)
        #expect(targets["CallDirReader"] == ["CallDirErrors", "CallDirNumbers", "CKernels"], "parsed \(targets)")
        var sources: [ModuleRule.SourceFile] = []
        let fm = FileManager.default
        for target in try fm.contentsOfDirectory(atPath: Self.sourcesPath).sorted() {
            let folder = Self.sourcesPath + "/" + target
            guard let walk = fm.enumerator(atPath: folder) else { continue }
            for case let file as String in walk where file.hasSuffix(".swift") {
                let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
                sources.append(.init(target: target, path: "Sources/\(target)/\(file)", text: text))
            }
        }
        #expect(sources.count > 100, "expected the package's sources under \(Self.sourcesPath)")
        // Test targets with a row: the phone libraries' tests and TestSupport (they link no CallDir).
        let testsPath = packageRoot.appendingPathComponent("Tests").path
        for target in try fm.contentsOfDirectory(atPath: testsPath).sorted() where rule.rows[target] != nil {
            guard let walk = fm.enumerator(atPath: testsPath + "/" + target) else { continue }
            for case let file as String in walk where file.hasSuffix(".swift") {
                let text = try String(contentsOfFile: testsPath + "/" + target + "/" + file, encoding: .utf8)
                sources.append(.init(target: target, path: "Tests/\(target)/\(file)", text: text))
            }
        }
        #expect(["TestSupport", "CallDirNumbersTests", "CallDirReaderTests", "CallDirDeviceTests", "CallDirSimulatorTests"].allSatisfy { rule.rows[$0] != nil })
        let offences = rule.offences(sources: sources, manifestTargets: targets)
        #expect(offences.isEmpty, "\(offences.count) offences of docs/MODULES.md:\n\(offences.joined(separator: "\n"))")
    }

    /// Issue 47: the number parser (4.8k lines, 2.1k generated) was 43% of the reader, walked
    /// through first by someone looking for how an index is read. It is `CallDirNumbers`, with
    /// its C tables in `CNumberTables`, beneath the reader: the reader imports it, never the reverse.
    @Test("the number parser is a module of its own beneath the reader: none of its files under Sources/CallDirReader or CKernels")
    func numberParserHasItsOwnModule() throws {
        let fm = FileManager.default
        let parser = try fm.contentsOfDirectory(atPath: Self.sourcesPath + "/CallDirNumbers").filter { $0.hasSuffix(".swift") }
        #expect(["NumberNormalizer.swift", "E164.swift", "ParsingRules.swift", "CountryTable.swift"].allSatisfy(parser.contains), "\(parser)")
        let reader = try fm.subpathsOfDirectory(atPath: Self.sourcesPath + "/CallDirReader")
        let strays = reader.filter { $0 == "Numbers" || $0.hasPrefix("Numbers/") || parser.contains(URL(fileURLWithPath: $0).lastPathComponent) }
        #expect(strays.isEmpty, "the number parser's files under Sources/CallDirReader: \(strays)")
        let tables = try fm.contentsOfDirectory(atPath: Self.sourcesPath + "/CNumberTables").filter { $0.hasSuffix(".c") }
        #expect(tables.contains("ParsingDFA.c") && tables.contains("PrefixRules.c"), "\(tables)")
        #expect(try fm.contentsOfDirectory(atPath: Self.sourcesPath + "/CKernels").filter(tables.contains).isEmpty)
        let rule = try ModuleRule(markdown: String(contentsOfFile: Self.docPath, encoding: .utf8))
        #expect(rule.rows["CallDirNumbers"]?.neverReach.contains("CallDirReader") == true, "the parser must sit beneath the reader")
        #expect(rule.rows["CallDirReader"]?.mayImport.contains("CallDirNumbers") == true)
        #expect(rule.rows["CallDirNumberTypes"]?.neverReach.contains("CallDirReader") == true, "validity and types need the numbers alone")
    }

    @Test("the check names the file and the import, the manifest dependency, the path to a forbidden target, a target without a row")
    func checkFindsOffences() throws {
        let rule = try ModuleRule(markdown: """
            ## The rule
            | Target | May import | Must never reach |
            |---|---|---|
            | `Reader` | `libc` | |
            | `Server` | `Reader`, `Front` | `Compiler` |
            | `Front` | `Reader` | |
            | `Compiler` | `Reader` | |
            | `NotYet` | `Reader` | |
            """)
        let manifest = """
            targets: [
                .target(name: "Reader"),
                .target(name: "Compiler", dependencies: ["Reader"]),
                .target(name: "Front", dependencies: ["Reader", "Compiler"]),  // reaches Compiler
                .target(name: "Server", dependencies: [
                    "Reader",
                    .product(name: "NIOCore", package: "swift-nio"),
                ]),
                .executableTarget(name: "Tool", dependencies: ["Front"]),
                .testTarget(name: "ServerTests", dependencies: ["Compiler", "Server"]),
            ]
            """
        let targets = ModuleRule.targets(inManifest: manifest)
        #expect(targets == ["Reader": [], "Compiler": ["Reader"], "Front": ["Reader", "Compiler"],
                            "Server": ["Reader", "NIOCore"], "Tool": ["Front"], "ServerTests": ["Compiler", "Server"]])
        let sources: [ModuleRule.SourceFile] = [
            .init(target: "Reader", path: "Sources/Reader/A.swift", text: "#if canImport(Glibc)\nimport Glibc\n#endif\n/// import Nothing\n"),
            .init(target: "Server", path: "Sources/Server/B.swift",
                  text: "import Reader\n@preconcurrency import Compiler\ninternal import struct Front.Thing\n"),
            .init(target: "Tool", path: "Sources/Tool/main.swift", text: "import Front\n"),
        ]
        let offences = rule.offences(sources: sources, manifestTargets: targets)
        #expect(offences.contains("Sources/Server/B.swift:2: target Server imports Compiler, which docs/MODULES.md does not allow it"))
        #expect(!offences.contains { $0.contains("Front.Thing") || $0.contains("imports Front") })
        #expect(offences.contains("Package.swift: target Server depends on NIOCore, which docs/MODULES.md does not allow it"))
        #expect(offences.contains("Package.swift: target Front depends on Compiler, which docs/MODULES.md does not allow it"))
        #expect(!offences.contains { $0.contains("must never reach") }, "Server's manifest dependencies do not lead to Compiler")
        #expect(offences.contains("Sources/Tool: target Tool has no row in docs/MODULES.md"))
        #expect(!offences.contains { $0.contains("Sources/Reader") }, "\(offences)")
        #expect(offences.count == 4, "\(offences)")

        // Through the manifest: Server -> Front -> Compiler.
        var reaching = targets
        reaching["Server"] = ["Reader", "Front"]
        let reached = rule.offences(sources: [], manifestTargets: reaching)
        #expect(reached.contains("Package.swift: target Server must never reach Compiler, but does: Server -> Front -> Compiler"), "\(reached)")
    }
}

/// docs/MODULES.md's table, and the check of sources and the manifest against it.
struct ModuleRule {
    struct Row { var mayImport: Set<String>; var neverReach: Set<String> }
    struct SourceFile { var target: String; var path: String; var text: String }

    /// The platform C library modules, written `libc` in the table.
    static let libc: Set<String> = ["Glibc", "Darwin", "Musl", "Android", "WinSDK"]

    let rows: [String: Row]

    /// The rows of the table under "## The rule": `| `Target` | `A`, `B` | `C` |`.
    init(markdown: String) throws {
        var rows: [String: Row] = [:]
        var inRule = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") { inRule = line == "## The rule"; continue }
            guard inRule, line.hasPrefix("| `") else { continue }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard cells.count >= 4, let target = Self.names(cells[1]).first else {
                throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "docs/MODULES.md: bad row: \(line)"])
            }
            rows[target] = Row(mayImport: Set(Self.names(cells[2])), neverReach: Set(Self.names(cells[3])))
        }
        self.rows = rows
    }

    /// The `backticked` names in a cell.
    static func names(_ cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// Each target of a manifest and its dependencies (target names, and product names
    /// for `.product(name:package:)`), read from the text: `.target(`, `.executableTarget(`,
    /// `.testTarget(` and `.systemLibrary(` calls with a literal `dependencies: [...]`.
    static func targets(inManifest manifest: String) -> [String: [String]] {
        let text = manifest.split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line) }
            .joined(separator: "\n")
        var targets: [String: [String]] = [:]
        var search = text.startIndex
        while let call = text.range(of: #"\.(target|executableTarget|testTarget|systemLibrary)\("#, options: .regularExpression, range: search..<text.endIndex) {
            let body = balanced(text, from: text.index(before: call.upperBound), open: "(", close: ")")
            search = call.upperBound
            guard let name = firstCapture(#"name:\s*"([^"]+)""#, in: body) else { continue }
            var dependencies: [String] = []
            if let list = body.range(of: "dependencies:") {
                guard let bracket = body[list.upperBound...].firstIndex(of: "[") else { continue }
                var items = balanced(body, from: bracket, open: "[", close: "]")
                while let product = items.range(of: #"\.product\(\s*name:\s*"([^"]+)"[^)]*\)"#, options: .regularExpression) {
                    dependencies.append(firstCapture(#"name:\s*"([^"]+)""#, in: String(items[product]))!)
                    items.removeSubrange(product)
                }
                dependencies = allCaptures(#""([^"]+)""#, in: items) + dependencies
            }
            targets[name] = dependencies
        }
        return targets
    }

    /// Every offence, each naming where it is: a file and line and the module it imports, a
    /// manifest dependency, a path to a target that must not be reached, a target without a row.
    func offences(sources: [SourceFile], manifestTargets: [String: [String]]) -> [String] {
        var offences: [String] = []
        var seenTargets = Set<String>()
        for file in sources {
            guard let row = rows[file.target] else {
                if seenTargets.insert(file.target).inserted {
                    offences.append("Sources/\(file.target): target \(file.target) has no row in docs/MODULES.md")
                }
                continue
            }
            for (number, line) in file.text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                guard let module = Self.importedModule(String(line)) else { continue }
                if !Self.allows(row, module) {
                    offences.append("\(file.path):\(number + 1): target \(file.target) imports \(module), which docs/MODULES.md does not allow it")
                }
            }
        }
        for (target, dependencies) in manifestTargets.sorted(by: { $0.key < $1.key }) {
            guard let row = rows[target] else { continue }  // Swift targets are named above; C ones have no files to check
            for dependency in dependencies where !Self.allows(row, dependency) {
                offences.append("Package.swift: target \(target) depends on \(dependency), which docs/MODULES.md does not allow it")
            }
            for forbidden in row.neverReach.sorted() {
                if let path = Self.path(from: target, to: forbidden, in: manifestTargets) {
                    offences.append("Package.swift: target \(target) must never reach \(forbidden), but does: " + path.joined(separator: " -> "))
                }
            }
        }
        return offences
    }

    static func allows(_ row: Row, _ module: String) -> Bool {
        row.mayImport.contains(module) || (libc.contains(module) && row.mayImport.contains("libc"))
    }

    /// The module an `import` line names (`@testable import X`, `internal import struct X.Y`).
    static func importedModule(_ line: String) -> String? {
        firstCapture(#"^\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+(?:(?:struct|class|enum|protocol|typealias|func|var|let)\s+)?([A-Za-z_][A-Za-z0-9_]*)"#, in: line)
    }

    /// A shortest dependency path from `start` to `goal` through the manifest, if there is one.
    static func path(from start: String, to goal: String, in graph: [String: [String]]) -> [String]? {
        var previous: [String: String] = [:]
        var queue = [start], seen: Set<String> = [start]
        while !queue.isEmpty {
            let node = queue.removeFirst()
            for next in graph[node] ?? [] where seen.insert(next).inserted {
                previous[next] = node
                if next == goal {
                    var path = [goal]
                    while let step = previous[path[0]] { path.insert(step, at: 0) }
                    return path
                }
                queue.append(next)
            }
        }
        return nil
    }

    private static func balanced(_ text: String, from open: String.Index, open o: Character, close c: Character) -> String {
        var depth = 0, i = open
        var inString = false
        while i < text.endIndex {
            let ch = text[i]
            if ch == "\"" { inString.toggle() }
            if !inString {
                if ch == o { depth += 1 }
                if ch == c { depth -= 1; if depth == 0 { return String(text[open...i]) } }
            }
            i = text.index(after: i)
        }
        return String(text[open...])
    }

    private static func firstCapture(_ pattern: String, in text: String) -> String? {
        allCaptures(pattern, in: text).first
    }

    private static func allCaptures(_ pattern: String, in text: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: pattern)
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }
}
