#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import CallDir
import CallDirLookup
import CallDirReader
import CallDirOptions

struct LookupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lookup",
        abstract: "Say whether numbers are blocked, identified (with their label), both, or unknown.",
        discussion: """
        Numbers may be formatted ('+1 (800) 555-5555', '00 41 21 560 12 34'), or national \
        with --country. With '-', numbers are read from stdin, one per line, and every input \
        line gets exactly one answer line, in order (blank lines too), so the output can be \
        pasted next to the input. --json prints one JSON object per number (JSON Lines).

        An input that is not a number is answered, not refused: a withheld caller ID \
        (anonymous, private, restricted, withheld, unavailable, unknown, or empty) gets the \
        --anonymous action, anything else the --invalid action (both allow by default), and \
        the answer says why: 'anonymous  unknown (not a number: anonymous)', in JSON \
        "valid":false with "reason" and "message".

        With --shards DIR/shards.json the shards `calldir shard` wrote answer, as the list \
        they were cut from does (each shard checked against the manifest first).

        With --personal FILE and/or --contacts FILE.vcf the answer is what a phone with the \
        user's layer does (docs/CALLKIT.md, "The user's layer"): a contact or an allowed \
        number rings ('unknown (exception)'), the user's blocks and labels apply \
        ('(your block)', '(your label)'); --country is also the phone's region for the \
        contacts and the layer.

        Exit status, like grep: 0 every answer is blocked or identified, 1 some answer is \
        not (unknown, or allowed although not a number), 2 an error (a missing or damaged \
        index, unreadable input, or stdout cannot be written), 64 bad usage.

        Examples:
          calldir lookup 18005555555
          calldir lookup --json '+1 877 555 5555' 12125550000
          cut -f1 calls.tsv | calldir lookup --index spam.calldir - | paste calls.tsv -
          calldir lookup --anonymous block anonymous
          calldir lookup --personal personal.txt --contacts contacts.vcf --country FR 0162000042
        """
    )

    @Option(help: ArgumentHelp("The index to read (default: $CALLDIR_INDEX or ~/.local/share/calldir/index.calldir).", valueName: "file"), completion: .file())
    var index: String?

    @Option(help: ArgumentHelp("Answer from the shards of this manifest (calldir shard) instead of an index.", valueName: "manifest"), completion: .file())
    var shards: String?

    @Option(help: ArgumentHelp("A calling code (1, 41) or region (US, CH) for numbers written without one; a region reads its own rules (CX, JE), a calling code its main region's.", valueName: "code"))
    var country: CountryOption?

    @Flag(help: "Print one JSON object per number.")
    var json = false

    @OptionGroup(title: "Caller IDs that are not numbers")
    var callerPolicy: CallerPolicyOptions

    @OptionGroup(title: "The user's layer")
    var personalOptions: PersonalOptions

    @Argument(help: ArgumentHelp("Numbers to look up, or '-' to read them from stdin.", valueName: "number"))
    var numbers: [String]

    func validate() throws {
        if numbers.isEmpty { throw ValidationError("Give at least one number, or '-' to read numbers from stdin.") }
        if numbers.contains("-") && numbers.count > 1 { throw ValidationError("'-' reads every number from stdin; give no other numbers.") }
        if shards != nil && index != nil { throw ValidationError("Give --index or --shards, not both.") }
    }

    func run() throws {
        var fast = FastLookup(index: index, country: country?.code, region: country?.region, json: json, numbers: numbers)
        fast.shards = shards
        fast.lenient = callerPolicy.isLenient
        fast.policy = CallerIDPolicy(withheld: CallerIDAction(rawValue: callerPolicy.anonymous) ?? .allow,
                                     invalid: CallerIDAction(rawValue: callerPolicy.invalid) ?? .allow)
        // The user's layer goes through the same answers (policy, --json, damage lines).
        do { fast.overlay = try personalOptions.overlay(country: country) } catch { throw Terminal.fail(error) }
        fast.run(stream: { try $0.answerLines(path: "-") })  // exits with the documented status
    }
}
