#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import CallDir
import CallDirReader

struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Load an index into a strict CallKit simulator, as a Call Directory extension would.",
        discussion: """
        Drives the library's DeviceLoader request after request into CallKitSimulator, which \
        applies CallKit's rules: per request and kind strictly ascending numbers, at most \
        1,999,999 entries per request (both kinds), removes only in incremental requests. \
        Prints the requests a device needs, the entries of each, any CallKit error, the \
        feed's time and the process's peak memory (the simulated device's store included). \
        Requests after the first are incremental.

        Exit status: 0 a device loads every entry; 1 a device would fail (the CallKit error \
        is printed); 2 the index cannot be read or is damaged; 64 bad usage.

        Examples:
          calldir simulate --index fr.calldir --request-size 1999999
          calldir simulate --json
        """
    )

    @Option(help: ArgumentHelp("The index to load (default: $CALLDIR_INDEX or ~/.local/share/calldir/index.calldir).", valueName: "file"))
    var index: String?

    @Option(help: ArgumentHelp("Entries per request, both kinds together. CallKit refuses more than 1,999,999.",
                               valueName: "n"))
    var requestSize = DeviceLoader.defaultRequestSize

    @Flag(help: "Print the result as one JSON object.")
    var json = false

    func validate() throws {
        if requestSize < 1 { throw ValidationError("--request-size must be at least 1.") }
    }

    func run() throws {
        let path = index ?? DefaultIndex.path
        let simulator = CallKitSimulator()
        let opened: CallDirIndex
        var steps: [LoadStep] = []
        var seconds = 0.0
        do {
            opened = try CallDirIndex(path: path)
            let loader = try DeviceLoader(index: opened, requestSize: requestSize)
            var committed: LoadCheckpoint?
            while true {
                simulator.beginRequest(systemSaysIncremental: !steps.isEmpty)
                let started = Self.now()
                let step = try loader.loadRequest(into: simulator, resumingFrom: committed)
                seconds += Self.now() - started
                steps.append(step)
                guard simulator.endRequest().succeeded, !step.isFinished else { break }
                committed = step.checkpoint
            }
        } catch {
            throw Terminal.fail(error)
        }
        let run = Run(index: opened, path: path, requestSize: requestSize, steps: steps, reports: simulator.history,
                      onDevice: simulator.entryCount, storedRuns: simulator.storedRunCount, seconds: seconds, peakBytes: Self.peakMemory())
        var out = StdoutBuffer()
        out.write(json ? run.json.rendered() + "\n" : run.text)
        out.flush()
        if let problem = run.problem {
            Terminal.error(problem)
            throw ExitCode(1)
        }
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

/// One simulated load, printed as text or JSON.
private struct Run {
    let index: CallDirIndex
    let path: String
    let requestSize: Int
    let steps: [LoadStep]
    let reports: [CallKitSimulator.RequestReport]
    let onDevice: Int64
    let storedRuns: Int
    let seconds: Double
    let peakBytes: Int64

    var expected: Int64 { index.metadata.deviceEntries }
    var failure: CallKitSimulator.Failure? { reports.last?.failure }

    /// Why a device would not end with the index, or nil.
    var problem: String? {
        if let failure, let number = reports.indices.last {
            return "a device would fail request \(number + 1) with \(failure)"
                + (failure.code == .maximumEntriesExceeded ? "; use --request-size 1999999 or less" : "")
        }
        if onDevice != expected {
            return "the device holds \(formatCount(onDevice)) entries, the index's metadata says \(formatCount(expected))"
        }
        return nil
    }

    var rate: Double { seconds > 0 ? Double(onDevice) / seconds : 0 }

    var text: String {
        var lines = ["index \(path) (checksum \(index.checksumText)): \(formatCount(expected)) device entries",
                     "request size \(formatCount(requestSize)) (CallKit's cap: \(formatCount(CallKitLimits.maxEntriesPerRequest)))"]
        for (i, (step, report)) in zip(steps, reports).enumerated() {
            var line = "request \(i + 1): \(report.kind.rawValue), \(formatCount(report.adds)) entries "
                + "(blocking \(formatCount(report.blockingAdds)), identification \(formatCount(report.identificationAdds)))"
            if let failure = report.failure { line += ", failed: \(failure)" } else if step.isFinished { line += ", done" }
            lines.append(line)
        }
        let errors = reports.filter { !$0.succeeded }.count
        lines.append("\(problem == nil ? "ok" : "FAILED"): \(steps.count) request\(steps.count == 1 ? "" : "s"), "
                     + "\(formatCount(onDevice)) entries on the device, \(errors) CallKit error\(errors == 1 ? "" : "s")")
        lines.append("feed \(formatFixed(seconds, 3)) s (\(formatFixed(rate / 1e6, 1)) M entries/s), "
                     + "peak memory \(formatFixed(Double(peakBytes) / 1_048_576, 1)) MiB (the process; the simulated "
                     + "device's store holds \(formatCount(storedRuns)) run\(storedRuns == 1 ? "" : "s") of consecutive numbers)")
        return lines.joined(separator: "\n") + "\n"
    }

    var json: JSONValue {
        let requests = zip(steps, reports).map { step, report -> JSONValue in
            .object([("kind", .string(report.kind.rawValue)), ("blocking", .int(Int64(report.blockingAdds))),
                     ("identification", .int(Int64(report.identificationAdds))), ("ok", .bool(report.succeeded)),
                     ("error", report.failure.map(Self.json) ?? .null), ("done", .bool(step.isFinished && report.succeeded))])
        }
        return .object([("index", .string(path)), ("checksum", .string(index.checksumText)), ("deviceEntries", .int(expected)),
                        ("requestSize", .int(Int64(requestSize))), ("ok", .bool(problem == nil)),
                        ("problem", problem.map { .string($0) } ?? .null), ("requests", .array(requests)),
                        ("entriesOnDevice", .int(onDevice)), ("storedRuns", .int(Int64(storedRuns))), ("seconds", .double(seconds)),
                        ("peakMemoryBytes", .int(peakBytes))])
    }

    static func json(_ failure: CallKitSimulator.Failure) -> JSONValue {
        .object([("code", .int(Int64(failure.code.code))), ("name", .string(failure.code.name)),
                 ("number", failure.number.map { .int($0) } ?? .null), ("message", .string(failure.message))])
    }
}
