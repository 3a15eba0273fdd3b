import CallDir
import CallDirLookup
import CallDirReader
import CallDirSimulator

/// `calldir simulate --calls FILE`: replays a script of CallKit calls, one per line, against
/// the simulator, as an extension would make them, so an app team can check a sequence of its
/// own against the device's rules (docs/CALLKIT.md). Lines (`#` starts a comment):
///
///     request [incremental=true|false]   begin a request (isIncremental from the device's history, or as given)
///     incremental?                       read isIncremental (printed)
///     add-blocking N | add-identification N LABEL
///     remove-blocking N | remove-identification N | remove-all-blocking | remove-all-identification
///     end | kill | expire                complete the request; the extension killed; an expired completion
struct CallScript {
    struct Failure: Error { let message: String; let line: Int }

    let path: String

    /// Runs the script; returns the lines to print and whether every request succeeded.
    func run(json: Bool) throws -> (output: String, ok: Bool) {
        let simulator = CallKitSimulator()
        var out: [String] = []
        var reads: [JSONValue] = []
        var open = false
        var lineNumber = 0
        func fail(_ message: String) -> CallDirError { CallDirError(.badInput, message, path: path, line: lineNumber) }
        try forEachLine(ofFile: path) { raw, lineAt in
            lineNumber = lineAt
            let text = String(decoding: raw, as: UTF8.self)
            let words = (text.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
                .split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            guard let verb = words.first else { return }
            func number(_ i: Int) throws -> Int64 {
                guard words.count > i, let n = Int64(words[i]) else { throw fail("\(verb) needs a number") }
                return n
            }
            if verb == "request" {
                guard !open else { throw fail("request: the previous request was not ended (end, kill or expire)") }
                switch words.dropFirst().first {
                case nil: simulator.beginRequest()
                case "incremental=true": simulator.beginRequest(systemSaysIncremental: true)
                case "incremental=false": simulator.beginRequest(systemSaysIncremental: false)
                case let other?: throw fail("request: unknown argument '\(other)' (incremental=true or incremental=false)")
                }
                open = true
                return
            }
            guard open else { throw fail("\(verb) outside a request (start one with 'request')") }
            switch verb {
            case "incremental?":
                let answer = simulator.isIncremental
                out.append("request \(simulator.history.count + 1): isIncremental = \(answer)")
                reads.append(.object([("request", .int(Int64(simulator.history.count + 1))), ("isIncremental", .bool(answer))]))
            case "add-blocking": simulator.addBlockingEntry(withNextSequentialPhoneNumber: try number(1))
            case "add-identification":
                guard words.count > 2 else { throw fail("add-identification needs a number and a label") }
                simulator.addIdentificationEntry(withNextSequentialPhoneNumber: try number(1), label: words[2...].joined(separator: " "))
            case "remove-blocking": simulator.removeBlockingEntry(withPhoneNumber: try number(1))
            case "remove-identification": simulator.removeIdentificationEntry(withPhoneNumber: try number(1))
            case "remove-all-blocking": simulator.removeAllBlockingEntries()
            case "remove-all-identification": simulator.removeAllIdentificationEntries()
            case "end", "kill", "expire":
                let report = verb == "end" ? simulator.endRequest() : verb == "kill" ? simulator.interrupt() : simulator.expire()
                open = false
                var line = "request \(simulator.history.count): \(report.kind.rawValue), \(report.adds) adds, \(report.removes) removes, "
                line += report.failure.map { "failed: \($0)" } ?? "ok"
                out.append(line + "; the device holds \(formatCount(simulator.entryCount)) entries")
            default:
                throw fail("unknown call '\(verb)'")
            }
        }
        if open { throw CallDirError(.badInput, "the last request was not ended (end, kill or expire)", path: path) }
        let failed = simulator.history.filter { !$0.succeeded }.count
        var blocking: [JSONValue] = []
        simulator.forEachBlockingEntry { blocking.append(.int($0)) }
        var identification: [JSONValue] = []
        simulator.forEachIdentificationEntry { identification.append(.object([("number", .int($0)), ("label", .string($1))])) }
        if json {
            let requests = simulator.history.map { report -> JSONValue in
                .object([("kind", .string(report.kind.rawValue)), ("adds", .int(Int64(report.adds))),
                         ("removes", .int(Int64(report.removes))), ("ok", .bool(report.succeeded)),
                         ("error", report.failure.map { .object([("code", .int(Int64($0.code.code))), ("name", .string($0.code.name)),
                                                                   ("message", .string($0.message))]) } ?? .null)])
            }
            let object: JSONValue = .object([("calls", .string(path)), ("ok", .bool(failed == 0)), ("requests", .array(requests)),
                                             ("isIncrementalReads", .array(reads)), ("blocking", .array(blocking)),
                                             ("identification", .array(identification))])
            return (object.rendered() + "\n", failed == 0)
        }
        out.append("\(failed == 0 ? "ok" : "FAILED"): \(simulator.history.count) request\(simulator.history.count == 1 ? "" : "s"), "
                   + "\(failed) failed; the device holds \(formatCount(simulator.blockingCount)) blocking and "
                   + "\(formatCount(simulator.identificationCount)) identification entries")
        return (out.joined(separator: "\n") + "\n", failed == 0)
    }
}
