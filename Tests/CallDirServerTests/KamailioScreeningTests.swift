import Foundation
import Testing
import TestSupport

/// Ways around docs/kamailio/calldir.cfg (issue 45), each sent as raw SIP over UDP to a real
/// Kamailio running the cfg, whose next hop is a socket of the test: an in-dialog request that
/// is no dialog of ours (the open relay), every method a blocked caller can start, a label
/// borrowed from another identity, and the second identity of a kind.
@Suite("Kamailio screening: dialogs, methods, identities", .tags(.endToEnd), .skippedInFastLoop)
struct KamailioScreeningTests {
    /// A request from `caller` (the From user) with `extra` header lines.
    static func request(_ method: String, uri: String, from port: Int, caller: String, callID: String, toTag: Bool = false,
                        extra: String = "") -> [UInt8] {
        let head = "\(method) \(uri) SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.1:\(port);branch=z9hG4bK-\(callID)\r\n"
            + "From: <sip:\(caller)@caller.invalid>;tag=\(callID)\r\nTo: <sip:reception@127.0.0.1>\(toTag ? ";tag=forged-1" : "")\r\n"
            + "Call-ID: \(callID)@raw.invalid\r\nCSeq: 1 \(method)\r\nContact: <sip:raw@127.0.0.1:\(port)>\r\nMax-Forwards: 70\r\n"
        return Array((head + extra + "Content-Length: 0\r\n\r\n").utf8)
    }

    /// What became of a request: the caller's final status, and what reached each socket.
    struct Outcome {
        var status: Int?
        var forwarded: [UInt8]?
        var elsewhere: [UInt8]?
        var labels: [String] { forwarded.map { SIPHeaders.values(of: "X-Caller-Label", in: $0, as: .sipp) } ?? [] }
    }

    @Test("no unscreened relay for a forged in-dialog request; every method screened; no borrowed label; every identity of a kind screened",
          .enabled(if: SIPTools.missing == nil, "\(SIPTools.missing ?? "")"), .timeLimit(.minutes(2)))
    func screening() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = try scratch.compile("sip.calldir", block: ["14692576503", "18005555555"], identify: ["18775555555,Telemarketer"])
        let serve = try Daemon(ServeProcessTests.binary, try KamailioSIPTests.documentedServeArguments(index: index),
                               log: scratch.file("serve.log"))
        defer { serve.stop() }
        let httpPort = try serve.waitFor(#"address=127\.0\.0\.1:(\d+)"#, then: "index loaded")
        let callee = UDPSocket(), elsewhere = UDPSocket(), caller = UDPSocket(), proxyPort = freeUDPPort()
        let proxy = try Daemon(SIPTools.kamailio, [
            "-f", KamailioSIPTests.docs + "/calldir.cfg", "-DD", "-E", "-m", "512", "-Y", scratch.path,
            "-l", "udp:127.0.0.1:\(proxyPort)",
            "-A", "CALLDIR=\"calldir=>http://127.0.0.1:\(httpPort)/v1/lookup\"", "-A", "NEXT_HOP=\"sip:127.0.0.1:\(callee.port)\"",
        ], log: scratch.file("kamailio.log"))
        defer { proxy.stop() }
        _ = try proxy.waitFor("Listening on")
        let hostile = SIPHostile(proxyPort: proxyPort, scratch: scratch)
        var serial = 0
        func send(_ method: String = "INVITE", caller number: String, uri: String? = nil, toTag: Bool = false, extra: String = "") -> Outcome {
            serial += 1
            let callID = "screen-\(serial)-\(caller.port)"
            let bytes = Self.request(method, uri: uri ?? "sip:reception@127.0.0.1:\(proxyPort)", from: caller.port, caller: number,
                                     callID: callID, toTag: toTag, extra: extra)
            let status = hostile.retransmit(bytes, from: caller) { SIPHostile.finalStatus(caller, milliseconds: 400) }
            return Outcome(status: status, forwarded: SIPHostile.message(callee, callID: callID, milliseconds: 300),
                           elsewhere: SIPHostile.message(elsewhere, callID: callID, milliseconds: 100))
        }
        // A well-formed call still goes through, with its label (the sockets never answer it).
        let plain = send(caller: "18775555555")
        #expect(plain.forwarded != nil && plain.labels == ["Telemarketer"], "\(proxy.text)")

        // 6. A To tag and our own Route (or another's) must not relay a blocked caller anywhere.
        var relayed = 0
        let anywhere = "sip:reception@127.0.0.1:\(elsewhere.port)"
        for (method, route) in [("INVITE", "<sip:127.0.0.1:\(proxyPort);lr>"), ("MESSAGE", "<sip:127.0.0.1:\(proxyPort);lr>"),
                                ("INVITE", "<sip:127.0.0.1:\(elsewhere.port);lr>")] {
            let outcome = send(method, caller: "18005555555", uri: anywhere, toTag: true, extra: "Route: \(route)\r\n")
            if outcome.elsewhere != nil || outcome.forwarded != nil { relayed += 1 }
            #expect(outcome.status == 404, "\(method) with Route \(route): \(outcome.status.map(String.init) ?? "no answer")")
        }
        #expect(relayed == 0, "\(relayed) of 3 forged in-dialog requests relayed")

        // 7. Every method a blocked caller can start outside a dialog gets 603 and never arrives.
        var delivered: [String] = []
        for method in ["MESSAGE", "OPTIONS", "UPDATE", "INFO", "SUBSCRIBE", "NOTIFY", "REFER", "PUBLISH"] {
            let outcome = send(method, caller: "18005555555")
            if outcome.forwarded != nil { delivered.append(method) }
            #expect(outcome.status == 603, "\(method): \(outcome.status.map(String.init) ?? "no answer")")
        }
        #expect(delivered.isEmpty, "delivered from a blocked caller: \(delivered)")
        #expect(send("MESSAGE", caller: "12125550000").forwarded != nil, "an unlisted caller's MESSAGE is passed on")

        // 8. A label is never borrowed from another identity; identities that agree keep it.
        let borrowed = send(caller: "12125550000", extra: "P-Asserted-Identity: <sip:18775555555@trunk.invalid>\r\n")
        #expect(borrowed.forwarded != nil && borrowed.labels == [], "\(borrowed.labels)")
        let agreeing = send(caller: "18775555555", extra: "P-Asserted-Identity: <sip:+18775555555@trunk.invalid>\r\n")
        #expect(agreeing.labels == ["Telemarketer"], "\(agreeing.labels)")
        // ...and the second identity of a kind is screened.
        var rang = 0
        let second = [
            "P-Asserted-Identity: <sip:12125550000@trunk.invalid>\r\nP-Asserted-Identity: <sip:14692576503@trunk.invalid>\r\n",
            "P-Asserted-Identity: <sip:12125550000@trunk.invalid>, <sip:14692576503@trunk.invalid>\r\n",
            "P-Asserted-Identity: <sip:12125550000@trunk.invalid>, <tel:+14692576503>\r\n",
            "Remote-Party-ID: <sip:12125550000@trunk.invalid>;party=calling\r\nRemote-Party-ID: <sip:14692576503@trunk.invalid>;party=calling\r\n",
            "P-Asserted-Identity: \"Doe, J\" <sip:12125550000@trunk.invalid>, <tel:+14692576503>\r\n",
        ]
        for extra in second {
            let outcome = send(caller: "12125550000", extra: extra)
            if outcome.forwarded != nil { rang += 1 }
            #expect(outcome.status == 603, "\(extra.debugDescription): \(outcome.status.map(String.init) ?? "no answer")")
        }
        #expect(rang == 0, "\(rang) of \(second.count) second identities rang")
    }
}
