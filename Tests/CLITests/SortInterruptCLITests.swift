import Foundation
import Testing

@Suite("calldir compile --sort as a process")
struct SortInterruptCLITests {
    @Test("Ctrl-C during a spilling sort removes every temporary file and publishes nothing")
    func interruptCleansUp() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let tmpdir = scratch.file("tmp")
        try FileManager.default.createDirectory(atPath: tmpdir, withIntermediateDirectories: true)
        var state: UInt64 = 12345
        var text = ""
        text.reserveCapacity(2_000_000 * 12)
        for _ in 0..<2_000_000 {  // shuffled valid NANP numbers
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let v = (state >> 20) % 800_0000_000
            text += "1\(2_000_000_000 + v % 8_000_000_000)\n"
        }
        let input = scratch.write("shuffled.txt", text)
        let output = scratch.file("out.calldir")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = ["compile", "-q", "--sort", "--dedupe", "--skip-invalid", "--memory", "1M", "--tmpdir", tmpdir, "--block", input, "-o", output]
        process.standardError = FileHandle.nullDevice
        try process.run()
        var sawSpill = false
        for _ in 0..<600 where process.isRunning {  // up to 30 s for the first spilled run
            let runs = (try? FileManager.default.subpathsOfDirectory(atPath: tmpdir)) ?? []
            if runs.contains(where: { $0.contains("/") }) { sawSpill = true; break }
            usleep(50_000)
        }
        #expect(sawSpill, "no spilled run appeared in \(tmpdir)")
        process.interrupt()
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        let left = try FileManager.default.contentsOfDirectory(atPath: tmpdir)
        #expect(left.isEmpty, "left behind: \(left)")
        #expect(!FileManager.default.fileExists(atPath: output))
        let stray = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.contains(".tmp.") }
        #expect(stray.isEmpty, "temporary index left: \(stray)")
    }

    @Test("vCard contacts feed identification by default, labelled with FN or ORG")
    func vcardIdentify() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let cards = scratch.write("contacts.vcf", """
        BEGIN:VCARD\r
        VERSION:3.0\r
        FN:Acme Plumbing\\, Inc.\r
        TEL;TYPE=WORK,VOICE:+1 (408) 555-0100\r
        TEL;TYPE=CELL:+1-408-555-0101\r
        END:VCARD\r
        BEGIN:VCARD\r
        VERSION:4.0\r
        ORG:City Hospital;Emergency\r
        TEL;VALUE=uri:tel:+1-650-555-0199\r
        END:VCARD\r

        """)
        let index = scratch.file("i.calldir")
        let compiled = try CLI.run(["compile", "--sort", "--identify", cards, "-o", index])
        #expect(compiled.status == 0, "\(compiled.stderr)")
        let result = try CLI.run(["lookup", "--index", index, "4085550101", "+16505550199", "--country", "1"])
        #expect(result.stdout == "+14085550101  identified: Acme Plumbing, Inc.\n+16505550199  identified: City Hospital\n")
    }
}
