import ArgumentParser

/// The options of `calldir serve`, shared by the `calldir` front end (which parses them for
/// `--help` and validation, then execs `calldir-serve`) and the `calldir-serve` daemon itself.
/// This target depends on ArgumentParser and CallDirReader only, so `calldir` never links SwiftNIO: linking it
/// made every `calldir lookup` start measurably slower (docs/BENCHMARKS-LOG.md has the figures).
package struct ServeOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The index to serve (default: $CALLDIR_INDEX or ~/.local/share/calldir/index.calldir).", valueName: "file"), completion: .file())
    package var index: String?

    @Option(help: "Address to listen on. Use 0.0.0.0 only behind a firewall or load balancer.")
    package var host = "127.0.0.1"

    @Option(help: "TCP port; 0 picks a free one (logged at start).")
    package var port = 8080

    @Option(name: .customLong("country"), help: ArgumentHelp("A calling code (1, 41) or region (US, CH) for caller IDs written without one; a region reads its own rules (CX, JE), a calling code its main region's.", valueName: "code"))
    package var countryOption: CountryOption?

    /// The calling code `--country` gives (`countryOption?.region`: the region, when named).
    package var country: Int? { countryOption?.code }

    @OptionGroup(title: "Caller IDs that are not numbers")
    package var callerPolicy: CallerPolicyOptions

    @Option(help: "Event-loop threads (default: one per core).")
    package var threads: Int?

    @Option(name: .customLong("poll-interval"), help: ArgumentHelp("How often to check whether the index file was replaced, in milliseconds; 0 turns it off (SIGHUP still reloads).", valueName: "ms"))
    package var pollInterval = 500

    @Flag(name: .customLong("require-index"), help: "Exit 2 at start when the index is missing or damaged, instead of waiting unready (503) for a good file; for a service manager's Restart=on-failure.")
    package var requireIndex = false

    @Flag(name: .customLong("log-requests"), help: "Log one line per request (method, path, status, microseconds).")
    package var logRequests = false

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    package var logLevel = "info"

    @Option(help: ArgumentHelp("Follow this signed feed (`calldir publish`): poll it, install each new index as `calldir update` does, and swap it in; without an index, fetch one before answering.", valueName: "url"))
    package var follow: String?

    @Option(name: .customLong("trusted-key"), help: ArgumentHelp("With --follow: a public key the feed may be signed with (repeatable, for rotation).", valueName: "key"))
    package var trustedKeys: [String] = []

    @Option(name: .customLong("root-version"), help: ArgumentHelp("With --follow: the key rotation the --trusted-key set belongs to (N: the keys root/N.json names).", valueName: "n"))
    package var rootVersion = 1

    @Option(name: .customLong("follow-interval"), help: ArgumentHelp("With --follow: how often to poll the feed, in milliseconds (each wait varies by up to 10% so replicas spread out; requests are conditional).", valueName: "ms"))
    package var followInterval = 60_000

    @Option(name: .customLong("feed-id"), help: ArgumentHelp("With --follow: the feed id to accept (what `calldir publish` prints); by default the first one seen is pinned in <index>.feed-state.", valueName: "id"))
    package var feedId: String?

    @Option(name: .customLong("follow-min-rate"), help: ArgumentHelp("With --follow: the slowest download accepted, in bytes a second over each stall window; slower is reported as stalled and aborted.", valueName: "bytes"))
    package var followMinRate = 1024

    @Option(name: .customLong("follow-stall-window"), help: ArgumentHelp("With --follow: the seconds over which --follow-min-rate is measured (headers included).", valueName: "seconds"))
    package var followStallWindow = 30

    package init() {}

    package static let maxPollInterval = 86_400_000

    package static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    package func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
        // A day at most: the interval is converted to nanoseconds, which a huge value overflows.
        guard (0...Self.maxPollInterval).contains(pollInterval) else {
            throw ValidationError("--poll-interval must be 0 to \(Self.maxPollInterval) milliseconds (a day).")
        }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1.") }
        if let follow {
            guard follow.hasPrefix("http://") || follow.hasPrefix("https://") else { throw ValidationError("--follow must be an http:// or https:// URL.") }
            guard !trustedKeys.isEmpty else { throw ValidationError("--follow needs at least one --trusted-key ed25519:<64 hex>.") }
            guard rootVersion >= 1 else { throw ValidationError("--root-version must be 1 or more.") }
            if let feedId, !FeedIdText.isValid(feedId) {
                throw ValidationError("--feed-id must be 1 to 64 letters, digits, '.', '_' or '-' (what `calldir publish` prints).")
            }
            guard (50...Self.maxPollInterval).contains(followInterval) else {
                throw ValidationError("--follow-interval must be 50 to \(Self.maxPollInterval) milliseconds.")
            }
            guard (0...(1 << 30)).contains(followMinRate), (1...3600).contains(followStallWindow) else {
                throw ValidationError("--follow-min-rate must be 0 to 1073741824 and --follow-stall-window 1 to 3600 seconds.")
            }
        } else if !trustedKeys.isEmpty {
            throw ValidationError("--trusted-key is for --follow.")
        }
        guard ServeOptions.logLevels.contains(logLevel) else {
            throw ValidationError("Unknown --log-level '\(logLevel)'; use one of \(ServeOptions.logLevels.joined(separator: ", ")).")
        }
    }

    /// What `calldir serve` and `calldir-serve --help` say about the daemon.
    package static let discussion = """
        GET /v1/lookup/{number}, POST /v1/lookup (a JSON array or one number per line, at most \
        10,000), GET /healthz, GET /metrics (Prometheus). Every caller ID is answered 200: one \
        that is not a number gets the --anonymous or --invalid action and says why. A single \
        lookup answers JSON, or with ?format=text one line (block, identify<TAB>label, allow), \
        or with ?format=status only a status (403 block, 200 identify, 204 allow); any other \
        query, or a '/', ';' or escaped '?' after the number, is a 400, and so is a range, a \
        pattern or text without a digit, which no caller sends (not-a-caller-id). Clients should time out \
        within 500 ms and let the call through. The index is verified before it is \
        served; on SIGHUP, or when the file is replaced (a compile publishes by rename), the new \
        file is verified and swapped in while requests in flight finish on the old one. A missing \
        or damaged replacement is refused and the old index keeps serving. SIGTERM or SIGINT stops \
        accepting, finishes requests in flight and exits 0. See docs/SERVE.md.

        Examples:
          calldir serve --index spam.calldir
          curl -s localhost:8080/v1/lookup/+18005555555
          curl -s 'localhost:8080/v1/lookup/anonymous?format=text'
          curl -s --data-binary @numbers.txt localhost:8080/v1/lookup
        """
}
