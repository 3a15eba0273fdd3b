import Foundation
import Testing

/// `calldir` is a front: it answers a one-shot lookup with the reader library alone and execs
/// `calldir-cli`, installed beside it, for everything else (same process, same exit status).
@Suite("The calldir front")
struct FrontCLITests {
    @Test("a one-shot lookup needs nothing but the front; every other command needs calldir-cli beside it")
    func frontAlone() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = scratch.file("i.calldir")
        let block = scratch.write("b.txt", "18005555555\n")
        let compiled = try CLI.run(["compile", "-q", "--block", block, "-o", index])
        #expect(compiled.status == 0, "\(compiled.stderr)")
        let lone = scratch.file("calldir")
        try FileManager.default.copyItem(atPath: CLI.binary, toPath: lone)

        let hit = try CLI.run(["lookup", "--index", index, "+1 800 555 5555", "12125550000"], binary: lone)
        #expect(hit.stdout == "+18005555555  blocked\n+12125550000  unknown\n")
        #expect(hit.status == 1)
        let json = try CLI.run(["lookup", "--json", "--index", index, "18005555555"], binary: lone)
        #expect(json.stdout.contains(#""valid":true,"number":"+18005555555","e164":18005555555,"action":"block","blocked":true"#))
        #expect(json.status == 0)

        for arguments in [["inspect", index], ["lookup", "--index", index, "-"], ["lookup", "--help"]] {
            let handed = try CLI.run(arguments, stdin: "18005555555\n", binary: lone)
            #expect(handed.status == 2, "\(arguments)")
            #expect(handed.stderr.contains("calldir-cli must be installed next to calldir"), "\(handed.stderr)")
            #expect(handed.stdout.isEmpty)
        }

        let cli = URL(fileURLWithPath: CLI.binary).deletingLastPathComponent().appendingPathComponent("calldir-cli").path
        try FileManager.default.createSymbolicLink(atPath: scratch.file("calldir-cli"), withDestinationPath: cli)
        let stream = try CLI.run(["lookup", "--index", index, "-"], stdin: "18005555555\n\n", binary: lone)
        #expect(stream.stdout == "+18005555555  blocked\n  unknown (not a number: empty)\n")
        #expect(stream.status == 1)
        let usage = try CLI.run(["lookup", "--index", index], binary: lone)
        #expect(usage.status == 64)
        #expect(usage.stderr.contains("Missing expected argument"))
    }
}
