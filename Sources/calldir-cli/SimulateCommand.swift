#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import CallDir
import CallDirLookup
import CallDirReader
import CallDirOptions
import CallDirSimulator

struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Load an index into a strict CallKit simulator, as a Call Directory extension would.",
        discussion: """
        Drives the library's DeviceLoader request after request into CallKitSimulator, the \
        device's state machine (docs/CALLKIT.md): per request and kind strictly ascending \
        numbers, at most 1,999,999 entries per request (both kinds), isIncremental true once \
        a request succeeded, the store deleted at the first add of a request that did not \
        read it as true, adds and removes in call order, a remove in a complete request \
        crashing the extension (error 2). Prints the requests a device needs, the entries of \
        each, any CallKit error, the feed's time and the process's peak memory (the \
        simulated device's store included).

        With --from OLD the simulated device first holds OLD completely (loaded as above), \
        then DeviceLoader updates it to the index: incremental requests that remove what \
        OLD has and the index lacks, then add what is new (a changed label is one of each), \
        at most --request-size changes per request, span by span (or a complete load when \
        the changes outnumber the index's entries). Prints the update's requests, its \
        removals and additions per kind, and checks the device ends with exactly the index.

        With --calls FILE it replays a script of CallKit calls instead, one per line: \
        'request [incremental=true|false]', 'incremental?', 'add-blocking N', \
        'add-identification N LABEL', 'remove-blocking N', 'remove-identification N', \
        'remove-all-blocking', 'remove-all-identification', and 'end', 'kill' or 'expire' to \
        finish a request. It prints each request's outcome and what the device holds.

        With --shards DIR/shards.json (calldir shard) every shard loads into an extension of \
        its own, one store each, as an app with several extensions loads them; it prints \
        each extension's requests, entries and feed time, and what one failed request costs. \
        With --from OLD/shards.json too, each extension first holds its old shard and is \
        updated (an unchanged shard costs no request); --off ID leaves an extension switched \
        off in Settings (never asked); --reloads-per-launch N counts the launches to finish.

        With --personal FILE and/or --contacts FILE.vcf the device loads the list with the \
        user's layer on top (docs/CALLKIT.md, "The user's layer"): contacts and allowed \
        numbers (allowances not yet expired) are never blocked nor labelled, the user's \
        blocks and labels are added; --country is the phone's region, for numbers written \
        nationally. The check at the end counts the entries of list ⊕ layer.

        Exit status: 0 a device loads every entry; 1 a device would fail (the CallKit error \
        is printed); 2 an index cannot be read or is damaged; 64 bad usage.

        Examples:
          calldir simulate --index fr.calldir --request-size 1999999
          calldir simulate --from fr-2025.calldir fr-2026.calldir
          calldir simulate --json
          calldir simulate fr.calldir --personal personal.txt --contacts contacts.vcf --country FR
          calldir simulate --calls my-extension-calls.txt
          calldir simulate --shards shards/shards.json --reloads-per-launch 2
          calldir simulate --shards new/shards.json --from old/shards.json --off com.example.Blocker.2
        """
    )

    @Option(help: ArgumentHelp("The index to load (default: $CALLDIR_INDEX or ~/.local/share/calldir/index.calldir).", valueName: "file"), completion: .file())
    var index: String?

    @Argument(help: ArgumentHelp("The index to load, instead of --index.", valueName: "index"), completion: .file())
    var indexArgument: String?

    @Option(help: ArgumentHelp("Simulate an update: the device holds this index completely, then is updated to the index.",
                               valueName: "old"), completion: .file())
    var from: String?

    @Option(help: ArgumentHelp("Entries per request, both kinds together. CallKit refuses more than 1,999,999.",
                               valueName: "n"))
    var requestSize = DeviceLoader.defaultRequestSize

    @Option(help: ArgumentHelp("Replay a script of CallKit calls (see above) instead of loading an index.", valueName: "file"), completion: .file())
    var calls: String?

    @Option(help: ArgumentHelp("Load every shard of this manifest (calldir shard) into an extension of its own.", valueName: "manifest"), completion: .file())
    var shards: String?

    @Option(help: ArgumentHelp("With --shards: an extension switched off in Settings (its bundle identifier); repeat for more.", valueName: "id"))
    var off: [String] = []

    @Option(name: .customLong("reloads-per-launch"), help: ArgumentHelp("With --shards: the reloads an app runs per launch, to count the launches to finish.", valueName: "n"))
    var reloadsPerLaunch: Int?

    @Flag(help: "Print the result as one JSON object.")
    var json = false

    @OptionGroup(title: "The user's layer")
    var personalOptions: PersonalOptions

    @Option(help: ArgumentHelp("The phone's region: a calling code (1, 33, 41) or region (US, FR, CH) for numbers of --personal and --contacts written without one; a region reads its own rules (CX, JE), a calling code its main region's.",
                               valueName: "code"))
    var country: CountryOption?

    func validate() throws {
        if requestSize < 1 { throw ValidationError("--request-size must be at least 1.") }
        if index != nil, indexArgument != nil { throw ValidationError("Give the index once: --index or an argument, not both.") }
        if calls != nil, index != nil || indexArgument != nil || from != nil || personalOptions.personal != nil
            || personalOptions.contacts != nil {
            throw ValidationError("--calls replays a script: give no index, --from, --personal or --contacts with it.")
        }
        if shards != nil, index != nil || indexArgument != nil || calls != nil || personalOptions.personal != nil
            || personalOptions.contacts != nil {
            throw ValidationError("--shards loads the manifest's shards: give no index, --calls, --personal or --contacts with it.")
        }
        if shards == nil, !off.isEmpty || reloadsPerLaunch != nil {
            throw ValidationError("--off and --reloads-per-launch go with --shards.")
        }
        if let reloadsPerLaunch, reloadsPerLaunch < 1 { throw ValidationError("--reloads-per-launch must be 1 or more.") }
    }

    func run() throws {
        if let calls {
            let result: (output: String, ok: Bool)
            do { result = try CallScript(path: calls).run(json: json) } catch { throw Terminal.fail(error) }
            var out = StdoutBuffer()
            out.write(result.output)
            out.flush()
            if !result.ok { throw ExitCode(.negativeAnswer) }
            return
        }
        if let shards {
            let run: ShardedRun
            do {
                run = try ShardedRun(manifestPath: shards, from: from, off: Set(off), reloadsPerLaunch: reloadsPerLaunch, requestSize: requestSize)
            } catch {
                throw Terminal.fail(error)
            }
            try report(text: run.text, json: run.json, problem: run.problem)
            return
        }
        let path = index ?? indexArgument ?? DefaultIndex.path
        let simulator = CallKitSimulator()
        let opened: CallDirIndex
        var previous: Previous?
        var steps: [LoadStep] = []
        var seconds = 0.0
        var expected: Int64 = 0
        do {
            // Verified first: the feed's size and the end check rely on the metadata's derived
            // counts, which only a verify compares with the sections (a forged range record
            // would otherwise feed 10^14 numbers for hours).
            opened = try CallDirIndex(path: path, verify: true)
            let overlay = try personalOptions.overlay(country: country)
            expected = try overlay?.deviceEntries(opened) ?? opened.metadata.deviceEntries
            var committed: LoadCheckpoint?
            if let from {
                let old = try CallDirIndex(path: from, verify: true)
                let loaded = try Self.drive(DeviceLoader(index: old, requestSize: requestSize, overlay: overlay), simulator, from: nil)
                previous = Previous(index: old, path: from, requests: loaded.steps.count, failure: simulator.history.last?.failure)
                committed = loaded.steps.last?.checkpoint
            }
            if previous?.failure == nil {
                let loader = try DeviceLoader(index: opened, previous: previous?.index, requestSize: requestSize,
                                              overlay: overlay)
                (steps, seconds) = try Self.drive(loader, simulator, from: committed)
            }
        } catch {
            throw Terminal.fail(error)
        }
        let run = Run(index: opened, path: path, expected: expected, requestSize: requestSize, previous: previous, steps: steps,
                      reports: Array(simulator.history.suffix(steps.count)), onDevice: simulator.entryCount,
                      storedRuns: simulator.storedRunCount, seconds: seconds, peakBytes: Self.peakMemory())
        try report(text: run.text, json: run.json, problem: run.problem)
    }

    /// Prints a run as text or JSON; a problem (a device would fail) goes to stderr, exit 1.
    private func report(text: String, json value: JSONValue, problem: String?) throws {
        var out = StdoutBuffer()
        out.write(json ? value.rendered() + "\n" : text)
        out.flush()
        if let problem {
            Terminal.error(problem)
            throw ExitCode(.negativeAnswer)
        }
    }

    /// Requests until the loader reports done or one fails, each committed on success. Returns
    /// the steps and the seconds spent in the loader.
    static func drive(_ loader: DeviceLoader, _ simulator: CallKitSimulator,
                      from start: LoadCheckpoint?) throws -> (steps: [LoadStep], seconds: Double) {
        var committed = start
        var steps: [LoadStep] = []
        var seconds = 0.0
        while true {
            simulator.beginRequest()  // isIncremental as a device answers it
            let started = now()
            let step = try loader.loadRequest(into: simulator, resumingFrom: committed)
            seconds += now() - started
            steps.append(step)
            guard simulator.endRequest().succeeded, !step.isFinished else { break }
            committed = step.checkpoint
        }
        return (steps, seconds)
    }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Peak resident memory of this process so far, in bytes.
    static func peakMemory() -> Int64 {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int64(usage.ru_maxrss) * 1024
    }
}

/// The index a simulated update starts from, loaded completely first.
struct Previous {
    let index: CallDirIndex
    let path: String
    let requests: Int
    let failure: CallKitSimulator.Failure?
}

/// One simulated load or update, printed as text or JSON.
struct Run {
    let index: CallDirIndex
    let path: String
    /// Device entries of the index, with the user's layer when there is one.
    let expected: Int64
    let requestSize: Int
    let previous: Previous?
    let steps: [LoadStep]
    let reports: [CallKitSimulator.RequestReport]
    let onDevice: Int64
    let storedRuns: Int
    let seconds: Double
    let peakBytes: Int64

    var failure: CallKitSimulator.Failure? { reports.last?.failure }
    /// Per kind: entries removed, entries added, over every request.
    var removals: (blocking: Int, identification: Int) {
        steps.reduce((0, 0)) { ($0.0 + $1.blockingRemovals, $0.1 + $1.identificationRemovals) }
    }
    var additions: (blocking: Int, identification: Int) {
        reports.reduce((0, 0)) { ($0.0 + $1.blockingAdds, $0.1 + $1.identificationAdds) }
    }

    /// Why a device would not end with the index, or nil.
    var problem: String? {
        if let previous, let failure = previous.failure {
            return "a device would fail request \(previous.requests) of loading \(previous.path) with \(failure)"
        }
        if let failure, let number = reports.indices.last {
            return "a device would fail request \(number + 1) with \(failure)"
                + (failure.code == .maximumEntriesExceeded ? "; use --request-size 1999999 or less" : "")
        }
        if onDevice != expected {
            return "the device holds \(formatCount(onDevice)) entries, the index's metadata says \(formatCount(expected))"
        }
        return nil
    }

    /// Entries fed: added, or in an update added or removed.
    var fed: Int64 { previous == nil ? onDevice : Int64(steps.reduce(0) { $0 + $1.entries }) }
    /// Entries fed per second on this machine.
    var rate: Double { seconds > 0 ? Double(fed) / seconds : 0 }
    /// What the same feed would take on a phone, at CallKit's measured rate: this machine's
    /// feed time is the simulator's, not the device's.
    var deviceSeconds: Double { Double(fed) / Double(CallKitLimits.measuredEntriesPerSecond) }

    static func kinds(_ counts: (blocking: Int, identification: Int), _ what: String) -> String {
        "\(formatCount(counts.blocking + counts.identification)) \(what) (blocking \(formatCount(counts.blocking)), "
            + "identification \(formatCount(counts.identification)))"
    }

    var text: String {
        var lines = ["index \(path) (checksum \(index.checksumText)): \(formatCount(expected)) device entries"]
        if let previous {
            lines.append("update from \(previous.path) (checksum \(previous.index.checksumText)): "
                         + "\(formatCount(previous.index.metadata.deviceEntries)) device entries, loaded first in "
                         + "\(previous.requests) request\(previous.requests == 1 ? "" : "s")")
        }
        lines.append("request size \(formatCount(requestSize)) (CallKit's cap: \(formatCount(CallKitLimits.maxEntriesPerRequest)))")
        for (i, (step, report)) in zip(steps, reports).enumerated() {
            var line = "request \(i + 1): \(report.kind.rawValue), "
            if previous == nil {
                line += Self.kinds((report.blockingAdds, report.identificationAdds), "entries")
            } else {
                line += Self.kinds((step.blockingRemovals, step.identificationRemovals), "removals") + ", "
                    + Self.kinds((report.blockingAdds, report.identificationAdds), "additions")
            }
            if let failure = report.failure { line += ", failed: \(failure)" } else if step.isFinished { line += ", done" }
            lines.append(line)
        }
        if previous != nil, !steps.isEmpty {
            lines.append("update: " + Self.kinds(removals, "removals") + ", " + Self.kinds(additions, "additions"))
        }
        let errors = reports.filter { !$0.succeeded }.count + (previous?.failure == nil ? 0 : 1)
        lines.append("\(problem == nil ? "ok" : "FAILED"): \(steps.count) request\(steps.count == 1 ? "" : "s"), "
                     + "\(formatCount(onDevice)) entries on the device, \(errors) CallKit error\(errors == 1 ? "" : "s")")
        lines.append("feed \(formatFixed(seconds, 3)) s (\(formatFixed(rate / 1e6, 1)) M entries/s), "
                     + "peak memory \(formatFixed(Double(peakBytes) / 1_048_576, 1)) MiB (the process; the simulated "
                     + "device's store holds \(formatCount(storedRuns)) run\(storedRuns == 1 ? "" : "s") of consecutive numbers)")
        lines.append("on a device: about \(formatFixed(deviceSeconds, 1)) s for \(counted(fed, "entry", "entries")) at CallKit's "
                     + "measured ~\(formatCount(CallKitLimits.measuredEntriesPerSecond)) entries/s (an estimate; the feed time above is this machine's)")
        return lines.joined(separator: "\n") + "\n"
    }

    var json: JSONValue {
        let requests = zip(steps, reports).map { step, report -> JSONValue in
            .object([("kind", .string(report.kind.rawValue)), ("blocking", .int(Int64(report.blockingAdds))),
                     ("identification", .int(Int64(report.identificationAdds))),
                     ("removedBlocking", .int(Int64(step.blockingRemovals))),
                     ("removedIdentification", .int(Int64(step.identificationRemovals))), ("ok", .bool(report.succeeded)),
                     ("error", report.failure.map(Self.json) ?? .null), ("done", .bool(step.isFinished && report.succeeded))])
        }
        let from = previous.map { previous -> JSONValue in
            .object([("index", .string(previous.path)), ("checksum", .string(previous.index.checksumText)),
                     ("deviceEntries", .int(previous.index.metadata.deviceEntries)), ("requests", .int(Int64(previous.requests))),
                     ("error", previous.failure.map(Self.json) ?? .null)])
        }
        func kinds(_ counts: (blocking: Int, identification: Int)) -> JSONValue {
            .object([("blocking", .int(Int64(counts.blocking))), ("identification", .int(Int64(counts.identification)))])
        }
        return .object([("index", .string(path)), ("checksum", .string(index.checksumText)), ("deviceEntries", .int(expected)),
                        ("from", from ?? .null), ("requestSize", .int(Int64(requestSize))), ("ok", .bool(problem == nil)),
                        ("problem", problem.map { .string($0) } ?? .null), ("requests", .array(requests)),
                        ("removals", kinds(removals)), ("additions", kinds(additions)),
                        ("entriesOnDevice", .int(onDevice)), ("storedRuns", .int(Int64(storedRuns))), ("seconds", .double(seconds)),
                        ("estimatedDeviceSeconds", .double(deviceSeconds)), ("peakMemoryBytes", .int(peakBytes))])
    }

    static func json(_ failure: CallKitSimulator.Failure) -> JSONValue {
        .object([("code", .int(Int64(failure.code.code))), ("name", .string(failure.code.name)),
                 ("number", failure.number.map { .int($0) } ?? .null), ("message", .string(failure.message))])
    }
}
