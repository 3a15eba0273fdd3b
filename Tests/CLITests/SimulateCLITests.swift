import Foundation
import Testing

@Suite("calldir simulate")
struct SimulateCLITests {
    static let frenchRanges: String? = {
        let path = CLI.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/realdata/fr-arcep-operator-ranges.json").path
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }()

    static func json(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("loads an index request by request: text and JSON agree with the index, exit 0")
    func smallIndex() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = scratch.file("s.calldir")
        let block = scratch.write("b.txt", "33162000005\n33162000000-33162000009\n33162000050\n")
        let identify = scratch.write("i.csv", "33162000100-33162000119,Wide\n33162000105,Exact\n")
        #expect(try CLI.run(["compile", "-q", "--sort", "--block", block, "--identify", identify, "-o", index]).status == 0)
        let text = try CLI.run(["simulate", "--index", index, "--request-size", "7"])
        #expect(text.status == 0, "\(text.stderr)")
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines[0].hasSuffix(": 31 device entries"))
        #expect(lines[2] == "request 1: complete, 7 entries (blocking 7, identification 0)")
        #expect(lines[3] == "request 2: incremental, 7 entries (blocking 4, identification 3)")
        #expect(lines[6] == "request 5: incremental, 3 entries (blocking 0, identification 3), done")
        #expect(lines[7] == "ok: 5 requests, 31 entries on the device, 0 CallKit errors")
        #expect(lines[8].hasPrefix("feed ") && lines[8].contains("peak memory"))

        let result = try CLI.run(["simulate", "--index", index, "--request-size", "7", "--json"])
        let object = try Self.json(result.stdout)
        let requests = try #require(object["requests"] as? [[String: Any]])
        #expect(result.status == 0 && object["ok"] as? Bool == true)
        #expect(requests.count == 5 && requests.map { $0["kind"] as? String } == ["complete"] + Array(repeating: "incremental", count: 4))
        #expect(object["entriesOnDevice"] as? Int == 31 && object["deviceEntries"] as? Int == 31)
    }

    @Test("a request size above CallKit's cap: the device would fail with error 5, exit 1")
    func overTheCap() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = scratch.file("big.calldir")
        let block = scratch.write("b.txt", "33100000000-33102099999\n")
        #expect(try CLI.run(["compile", "-q", "--block", block, "-o", index]).status == 0)
        let result = try CLI.run(["simulate", "--index", index, "--request-size", "2000000", "--json"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("a device would fail request 1 with CallKit error 5 (maximumEntriesExceeded)"))
        let object = try Self.json(result.stdout)
        let request = try #require((object["requests"] as? [[String: Any]])?.first)
        let error = try #require(request["error"] as? [String: Any])
        #expect(error["code"] as? Int == 5 && request["blocking"] as? Int == 1_999_999 && object["entriesOnDevice"] as? Int == 0)
        // Within the cap the same index loads in two requests.
        let ok = try CLI.run(["simulate", "--index", index, "--request-size", "1999999"])
        #expect(ok.status == 0 && ok.stdout.contains("ok: 2 requests, 2,100,000 entries on the device"))
    }

    @Test("usage errors exit 64, a missing index 2")
    func errors() throws {
        #expect(try CLI.run(["simulate", "--request-size", "0"]).status == 64)
        #expect(try CLI.run(["simulate", "--request-size", "many"]).status == 64)
        let missing = try CLI.run(["simulate", "--index", "/nonexistent/x.calldir"])
        #expect(missing.status == 2 && missing.stderr.contains("cannot open index"))
    }

    @Test("French operator ranges: 14,951,000 numbers need 8 requests at CallKit's cap",
          .enabled(if: SimulateCLITests.frenchRanges != nil, "../shared/realdata is not present: skipped"))
    func frenchRangesAtTheCap() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = scratch.file("fr.calldir")
        let compiled = try CLI.run(["compile", "-q", "--skip-invalid", "--block", Self.frenchRanges!, "-o", index])
        #expect(compiled.status == 0, "\(compiled.stderr)")
        let result = try CLI.run(["simulate", "--index", index, "--request-size", "1999999", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try Self.json(result.stdout)
        let requests = try #require(object["requests"] as? [[String: Any]])
        #expect(requests.count == 8)
        #expect(requests.dropLast().allSatisfy { $0["blocking"] as? Int == 1_999_999 })
        #expect(requests.last?["blocking"] as? Int == 14_951_000 - 7 * 1_999_999)
        #expect(object["entriesOnDevice"] as? Int == 14_951_000 && object["deviceEntries"] as? Int == 14_951_000)
    }

    @Test("--from OLD: loads OLD, then updates to the index; removals and additions per kind, text and JSON")
    func update() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let old = scratch.file("old.calldir")
        let new = scratch.file("new.calldir")
        let oldBlock = scratch.write("ob.txt", "33162000000-33162000099\n33162000500\n")
        let oldIdentify = scratch.write("oi.csv", "33162000100-33162000119,Wide\n")
        let newBlock = scratch.write("nb.txt", "33162000000-33162000089\n33162000600\n")
        let newIdentify = scratch.write("ni.csv", "33162000100-33162000119,Wide\n33162000105,Exact\n")
        #expect(try CLI.run(["compile", "-q", "--block", oldBlock, "--identify", oldIdentify, "-o", old]).status == 0)
        #expect(try CLI.run(["compile", "-q", "--sort", "--block", newBlock, "--identify", newIdentify, "-o", new]).status == 0)
        // Removals: blocking 90-99 and 500 (11), identification 105 (its label changes); additions: 600 and 105.
        let text = try CLI.run(["simulate", "--from", old, new, "--request-size", "8"])
        #expect(text.status == 0, "\(text.stderr)")
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines[1].hasPrefix("update from \(old) (checksum ") && lines[1].hasSuffix(": 121 device entries, loaded first in 16 requests"))
        #expect(lines[3] == "request 1: incremental, 8 removals (blocking 8, identification 0), 0 additions (blocking 0, identification 0)")
        #expect(lines[4] == "request 2: incremental, 4 removals (blocking 3, identification 1), 2 additions (blocking 1, identification 1), done")
        #expect(lines[5] == "update: 12 removals (blocking 11, identification 1), 2 additions (blocking 1, identification 1)")
        #expect(lines[6] == "ok: 2 requests, 111 entries on the device, 0 CallKit errors")

        let result = try CLI.run(["simulate", "--from", old, "--index", new, "--json"])
        let object = try Self.json(result.stdout)
        #expect(result.status == 0 && object["ok"] as? Bool == true && object["entriesOnDevice"] as? Int == 111)
        let requests = try #require(object["requests"] as? [[String: Any]])
        #expect(requests.count == 1 && requests[0]["removedBlocking"] as? Int == 11 && requests[0]["kind"] as? String == "incremental")
        #expect((object["removals"] as? [String: Int]) == ["blocking": 11, "identification": 1])
        #expect((object["additions"] as? [String: Int]) == ["blocking": 1, "identification": 1])
        #expect((object["from"] as? [String: Any])?["deviceEntries"] as? Int == 121)
        // With the user's layer (a contact inside OLD's range): still an update, minus the
        // contact's entry (issue 37; before, a complete load of NEW ⊕ layer).
        let contacts = scratch.write("c.vcf", "BEGIN:VCARD\nTEL:01 62 00 00 95\nEND:VCARD\n")
        let layered = try CLI.run(["simulate", "--from", old, new, "--request-size", "8", "--contacts", contacts, "--country", "FR"])
        #expect(layered.status == 0, "\(layered.stderr)")
        let layeredLines = layered.stdout.split(separator: "\n").map(String.init)
        #expect(layeredLines.contains("update: 11 removals (blocking 10, identification 1), 2 additions (blocking 1, identification 1)"),
                "\(layered.stdout)")
        #expect(layeredLines.contains("ok: 2 requests, 111 entries on the device, 0 CallKit errors"))
        #expect(try CLI.run(["simulate", "--from", old, "--index", new, new]).status == 64)
        #expect(try CLI.run(["simulate", "--from", scratch.file("missing.calldir"), new]).status == 2)
    }
}

/// `calldir simulate --calls`: the device's state machine, one behaviour per test, as a script
/// of CallKit calls an extension would make.
@Suite("calldir simulate --calls")
struct SimulateCallsCLITests {
    static func run(_ script: String, json: Bool = false) throws -> (status: Int32, stdout: String, stderr: String) {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let path = scratch.write("calls.txt", script)
        let result = try CLI.run(["simulate", "--calls", path] + (json ? ["--json"] : []))
        return (result.status, result.stdout, result.stderr)
    }

    @Test("isIncremental answers from the device's history: false first, true after a success, still true after a failure emptied the store")
    func incrementalFromHistory() throws {
        let result = try Self.run("""
            request
            incremental?
            add-blocking 33100000001
            end
            request
            incremental?
            kill
            request   # the store is empty now
            incremental?
            end
            """)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines[0] == "request 1: isIncremental = false")
        #expect(lines[2] == "request 2: isIncremental = true")
        #expect(lines[3].hasPrefix("request 2: incremental, 0 adds, 0 removes, failed: CallKit error 2 (loadingInterrupted)"))
        #expect(lines[4] == "request 3: isIncremental = true")
        #expect(result.status == 1, "a request failed")
    }

    @Test("adds and removes in call order: add X, remove X leaves X absent")
    func callOrder() throws {
        let result = try Self.run("""
            request
            add-blocking 5
            end
            request
            incremental?
            add-blocking 8
            remove-blocking 8
            end
            """, json: true)
        let object = try SimulateCLITests.json(result.stdout)
        #expect(result.status == 0 && object["blocking"] as? [Int] == [5])
    }

    @Test("the store is deleted at the first add of a request that did not read isIncremental as true")
    func deletionAtFirstAdd() throws {
        let result = try Self.run("""
            request
            add-blocking 10
            add-blocking 11
            end
            request
            add-blocking 30
            incremental?
            add-blocking 31
            end
            """, json: true)
        let object = try SimulateCLITests.json(result.stdout)
        let requests = try #require(object["requests"] as? [[String: Any]])
        #expect(result.status == 0 && object["blocking"] as? [Int] == [30, 31] && requests[1]["kind"] as? String == "complete")
    }

    @Test("a remove in a complete request crashes the extension: error 2, the store wiped, exit 1")
    func removeInCompleteRequest() throws {
        let result = try Self.run("""
            request
            add-identification 7 Spam
            end
            request incremental=false
            remove-identification 7
            end
            """)
        #expect(result.status == 1)
        #expect(result.stdout.contains("request 2: complete, 0 adds, 0 removes, failed: CallKit error 2 (loadingInterrupted): a remove in a complete request"))
        #expect(result.stdout.hasSuffix("FAILED: 2 requests, 1 failed; the device holds 0 blocking and 0 identification entries\n"))
    }

    @Test("a script error names the file and line; exit 2")
    func scriptError() throws {
        let result = try Self.run("request\nadd-blocking twelve\nend\n")
        #expect(result.status == 2 && result.stderr.contains("calls.txt:2: ") && result.stderr.contains("add-blocking needs a number"))
    }
}
