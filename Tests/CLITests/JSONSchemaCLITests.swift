import Foundation
import Testing

/// Every `--json` output shape is described by a JSON Schema in docs/schemas; real output of
/// the built binary is validated against it (PyPI `jsonschema`, installed by `scripts/setup
/// --tests`), so a changed shape fails here until its schema says so.
@Suite("JSON Schemas in docs/schemas")
struct JSONSchemaCLITests {
    static let hasValidator = (try? runShell("python3 -c 'import jsonschema'"))?.0 == 0

    /// Validates each line of `output` that is a JSON object against docs/schemas/NAME.schema.json.
    static func expectValid(_ output: String, schema name: String, lines: Int = 1) throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let documents = output.split(separator: "\n").filter { $0.hasPrefix("{") }
        #expect(documents.count >= lines, "\(name): \(output)")
        let data = scratch.write("docs.jsonl", documents.joined(separator: "\n") + "\n")
        let schema = CLI.packageRoot.path + "/docs/schemas/\(name).schema.json"
        let script = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            jsonschema.Draft202012Validator.check_schema(schema)
            validator = jsonschema.Draft202012Validator(schema)
            bad = [f"line {i}: {e.message} at {list(e.absolute_path)}" for i, line in enumerate(open(sys.argv[2]), 1)
                   for e in validator.iter_errors(json.loads(line))]
            print("\\n".join(bad), file=sys.stderr)
            sys.exit(1 if bad else 0)
            """
        let (status, errors) = try runShell("python3 -c '\(script)' '\(schema)' '\(data)'")
        #expect(status == 0, "\(name): \(errors)")
    }

    @Test("compile, lookup, inspect, verify, diff, diff --report, simulate and --error-format json match their schemas",
          .enabled(if: hasValidator, "python3 with jsonschema is not installed (scripts/setup --tests installs it): skipped"))
    func everyShape() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let block = scratch.write("b.txt", "+18005555555\n+1 900 555 0000 - +1 900 555 0999\n")
        let identify = scratch.write("i.csv", "+18775555555,Telemarketer\n+1 888 555 0000 - +1 888 555 0099,Local business\n")
        let (a, b) = (scratch.file("a.calldir"), scratch.file("b.calldir"))
        try Self.expectValid(try CLI.run(["compile", "--json", "--block", block, "--identify", identify, "-o", a]).stdout, schema: "compile")
        let identify2 = scratch.write("i2.csv", "+18775555555,Scam\n+14155550100,Spam risk\n+1 888 555 0000 - +1 888 555 0199,Local business\n")
        try Self.expectValid(try CLI.run(["compile", "--json", "--sort", "--block", block, "--identify", identify2, "-o", b]).stdout,
                             schema: "compile")
        let bad = scratch.write("bad.txt", "+18005555556\n+18005555555\nabc 1\n911\n")
        try Self.expectValid(try CLI.run(["compile", "--json", "--block", bad, "-o", scratch.file("c.calldir")]).stdout, schema: "compile")
        try Self.expectValid(try CLI.run(["compile", "--error-format", "json", "--block", bad, "-o", scratch.file("c.calldir")]).stderr,
                             schema: "error-format", lines: 3)
        try Self.expectValid(try CLI.run(["compile", "--error-format", "json", "--block", scratch.file("none.txt")]).stderr,
                             schema: "error-format")
        let inputs = ["18005555555", "19005550123", "18775555555", "18885550050", "12125550000", "anonymous", "911", "1900555####", "abc"]
        try Self.expectValid(try CLI.run(["lookup", "--json", "--index", a] + inputs).stdout, schema: "lookup", lines: inputs.count)
        for file in [a, b] {
            try Self.expectValid(try CLI.run(["inspect", "--json", file]).stdout, schema: "inspect")
            try Self.expectValid(try CLI.run(["verify", "--json", file]).stdout, schema: "verify")
        }
        let delta = scratch.file("ab.delta")
        try Self.expectValid(try CLI.run(["diff", a, b, "-o", delta, "--json"]).stdout, schema: "diff")
        try Self.expectValid(try CLI.run(["inspect", "--json", delta]).stdout, schema: "inspect")
        try Self.expectValid(try CLI.run(["verify", "--json", scratch.file("missing.calldir")]).stdout, schema: "verify")
        for (old, new) in [(a, b), (b, a)] {
            try Self.expectValid(try CLI.run(["diff", old, new, "--report", "--format", "json", "--max-numbers", "20000"]).stdout,
                                 schema: "diff-report")
        }
        try Self.expectValid(try CLI.run(["simulate", "--index", b, "--json"]).stdout, schema: "simulate")
        try Self.expectValid(try CLI.run(["simulate", "--from", a, "--index", b, "--json"]).stdout, schema: "simulate")
    }
}
