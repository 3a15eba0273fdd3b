import Foundation
import Testing

/// A hostile caller of docs/kamailio/calldir.cfg (issue 35): a burst of every caller-ID shape
/// that once switched screening off or rang through, and SIP bytes sipp cannot send.
struct SIPHostile {
    let proxyPort: Int
    let scratch: TempFolder

    /// From user parts, each answered 603 by the cfg: `..` (libcurl asked `/v1/` for it, 404,
    /// counted as a failure: three opened the breaker), a blocked number written as a range
    /// (`--invalid allow` rang it), an empty user part (asked as `0`, rang), the bypasses of
    /// issue 29, and blocked numbers themselves, so that a breaker opened by the others shows.
    static let shapes = [
        "..", ".", "14692576503..14692576503", "14692576503..", "1..4692576503", "", "18005555555..18005555555",
        "18005555555?x", "18005555555%3Fx", "18005555555;x", "1900555####", "+", "()", "14692576503", "8005555555",
    ]

    /// `calls` calls at 200 calls/s cycling through `shapes`, each expecting 603 (sipp's
    /// call-declined.xml with the From user from a file); sipp's counts of calls that got
    /// their 603, and of calls that got anything else (a 200: it rang).
    func burst(calls: Int) throws -> (declined: Int, otherAnswer: Int, failed: Int) {
        let folder = scratch.file("burst")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let declined = try String(contentsOfFile: KamailioSIPTests.docs + "/call-declined.xml", encoding: .utf8)
        let scenario = scratch.write("burst/call.xml", declined.replacingOccurrences(of: "[caller]", with: "[field0]"))
        let callers = scratch.write("burst/callers.csv", "SEQUENTIAL\n" + Self.shapes.map { $0 + ";\n" }.joined())
        let sipp = try Daemon(SIPTools.sipp, [
            "127.0.0.1:\(proxyPort)", "-sf", scenario, "-inf", callers, "-s", "reception", "-i", "127.0.0.1",
            "-p", "\(freeUDPPort())", "-r", "200", "-m", "\(calls)", "-l", "100", "-nostdin", "-timeout", "60s",
            "-recv_timeout", "5000", "-trace_stat", "-stf", folder + "/stat.csv",
        ], log: folder + "/sipp.out")
        _ = sipp.wait()
        let stat = try String(contentsOfFile: folder + "/stat.csv", encoding: .utf8).split(separator: "\n")
        let names = try #require(stat.first).split(separator: ";", omittingEmptySubsequences: false)
        let values = try #require(stat.last).split(separator: ";", omittingEmptySubsequences: false)
        func counter(_ name: String) throws -> Int {
            try #require(names.firstIndex { $0 == name }.flatMap { Int(values[$0]) }, "\(name) in \(folder)/stat.csv")
        }
        return (try counter("SuccessfulCall(C)"), try counter("FailedUnexpectedMessage(C)"), try counter("FailedCall(C)"))
    }

    /// An INVITE from `caller` with `extra` header bytes, as sipp cannot send them.
    static func invite(to proxy: Int, from port: Int, caller: String, callID: String, extra: String) -> [UInt8] {
        let head = "INVITE sip:reception@127.0.0.1:\(proxy) SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.1:\(port);branch=z9hG4bK-\(callID)\r\n"
            + "From: <sip:\(caller)@caller.invalid>;tag=\(callID)\r\nTo: <sip:reception@127.0.0.1>\r\n"
            + "Call-ID: \(callID)@raw.invalid\r\nCSeq: 1 INVITE\r\nContact: <sip:raw@127.0.0.1:\(port)>\r\nMax-Forwards: 70\r\n"
        return Array((head + extra + "Content-Length: 0\r\n\r\n").utf8)
    }
}

extension SIPHostile {
    /// Header bytes that hide a label from Kamailio's `remove_hf` inside another header, each
    /// after `Subject: hi`: a bare CR (the issue's, read by PJSIP as a line end), the same after
    /// a NUL, a bare LF, a folded line (read by sipp as a header), and a folded continuation of
    /// a forged label.
    static let injections = [
        "Subject: hi\rX-Caller-Label: Your Bank\r\n",
        "Subject: hi\rX-Caller-Label: Your Bank\rX-Other: y\r\n",
        "Subject: hi\0\rX-Caller-Label: Your Bank\r\n",  // a NUL first: a regular expression stops at it
        "Subject: hi\nX-Caller-Label: Your Bank\r\n",
        "Subject: hi\r\n X-Caller-Label: Your Bank\r\n",
        "Subject: hi\r\n\tX-Caller-Label: Your Bank\r\n",
        "X-Caller-Label: Bank\r\n Your Bank\r\n",
    ]

    /// Through the proxy (whose next hop is `callee`), the identified caller
    /// 18775555555 sends a well-formed INVITE, which must reach the callee with calldir's label
    /// alone, then each injection, which must be refused 400 and never reach it. Whatever does
    /// reach it is read as PJSIP and as sipp read headers: calldir's label must be the only one.
    func headerInjections(callee: UDPSocket) {
        let caller = UDPSocket()
        for (number, extra) in [(-1, "Subject: hi\r\n")] + Self.injections.enumerated().map({ ($0.offset, $0.element) }) {
            let callID = "raw-\(number)-\(caller.port)", what = "\(extra.debugDescription)"
            let invite = Self.invite(to: proxyPort, from: caller.port, caller: "18775555555", callID: callID, extra: extra)
            var forwarded: [UInt8]?
            if number < 0 {
                forwarded = retransmit(invite, from: caller) { Self.message(callee, callID: callID, milliseconds: 500) }
                #expect(forwarded != nil, "the well-formed INVITE was not passed on")
            } else {
                let final = retransmit(invite, from: caller) { Self.finalStatus(caller, milliseconds: 500) }
                forwarded = Self.message(callee, callID: callID, milliseconds: 300)
                #expect(final == 400, "\(what): answered \(final.map(String.init) ?? "nothing")")
                #expect(forwarded.map { String(decoding: $0, as: UTF8.self) } == nil, "\(what) was passed on")
            }
            for reader in [SIPHeaders.Reader.pjsip, .sipp] {
                guard let forwarded else { break }
                let labels = SIPHeaders.values(of: "X-Caller-Label", in: forwarded, as: reader)
                #expect(labels == ["Telemarketer"], "\(what) read as \(reader): \(labels)")
            }
        }
    }

    /// Sends `invite` to the proxy again every 500 ms until `answer` gives a value, at most 4
    /// times, as a SIP client over UDP does (RFC 3261's timer A): Kamailio reports that it
    /// listens before its workers bind, so a first datagram can be lost.
    func retransmit<T>(_ invite: [UInt8], from caller: UDPSocket, until answer: () -> T?) -> T? {
        for _ in 0..<4 {
            caller.send(invite, to: proxyPort)
            if let answer = answer() { return answer }
        }
        return nil
    }

    /// The status of the first final (not 1xx) answer `socket` receives within `milliseconds`.
    static func finalStatus(_ socket: UDPSocket, milliseconds: Int32) -> Int? {
        let deadline = Date().addingTimeInterval(Double(milliseconds) / 1000)
        while Date() < deadline, let answer = socket.receive(milliseconds: milliseconds) {
            let words = String(decoding: answer.prefix(40), as: UTF8.self).split(separator: " ")
            if words.count > 1, words[0] == "SIP/2.0", let status = Int(words[1]), status >= 200 { return status }
        }
        return nil
    }

    /// The first message `socket` receives within `milliseconds` whose Call-ID is `callID`'s.
    static func message(_ socket: UDPSocket, callID: String, milliseconds: Int) -> [UInt8]? {
        let deadline = Date().addingTimeInterval(Double(milliseconds) / 1000)
        while Date() < deadline, let message = socket.receive(milliseconds: Int32(milliseconds)) {
            if String(decoding: message, as: UTF8.self).contains("Call-ID: \(callID)@") { return message }
        }
        return nil
    }
}

/// A UDP socket on 127.0.0.1 (port 0: the kernel picks one) for datagrams sipp cannot send or
/// should not answer.
final class UDPSocket {
    let fd: Int32
    let port: Int

    init() {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8], to port: Int) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        _ = bytes.withUnsafeBytes { bytes in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    /// The next datagram, or nil after `milliseconds` without one.
    func receive(milliseconds: Int32) -> [UInt8]? {
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, milliseconds) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = recv(fd, &buffer, buffer.count, 0)
        return count > 0 ? Array(buffer.prefix(count)) : nil
    }
}

/// Header fields of a SIP message as a callee reads them. RFC 3261 (section 7.3.1, and the
/// grammar's `CRLF` after every `message-header`) ends each header line with CRLF and joins a
/// line that starts with a space or tab to the one before (folding). Callees are laxer:
/// PJSIP 2.15.1 (Asterisk's chan_pjsip, many phones) ends a line at a bare CR or a bare LF too
/// (`pj_scan_get_newline` takes CR, LF or CRLF), which is how `Subject: hi<CR>X-Caller-Label:
/// Your Bank` became a label; sipp also ends lines at a bare CR or LF and reads a folded line as
/// a header of its own. `Reader.pjsip` and `Reader.sipp` read both ways.
enum SIPHeaders {
    enum Reader { case pjsip, sipp }

    /// The trimmed values of every header called `name` (any case) in `message`'s header section.
    static func values(of name: String, in message: [UInt8], as reader: Reader) -> [String] {
        var lines: [[UInt8]] = [[]]
        var index = 0
        while index < message.count {
            let byte = message[index]
            index += 1
            guard byte == 0x0D || byte == 0x0A else { lines[lines.count - 1].append(byte); continue }
            if byte == 0x0D, index < message.count, message[index] == 0x0A { index += 1 }  // CRLF is one line end
            if lines[lines.count - 1].isEmpty { break }  // the empty line: the body follows
            lines.append([])
        }
        var fields: [String] = []
        for line in lines.dropFirst() where !line.isEmpty {  // the request line first
            let text = String(decoding: line, as: UTF8.self)
            if reader == .pjsip, text.first == " " || text.first == "\t", !fields.isEmpty {
                fields[fields.count - 1] += " " + text.trimmingCharacters(in: .whitespaces)
            } else {
                fields.append(text.trimmingCharacters(in: .whitespaces))
            }
        }
        return fields.compactMap { field in
            guard let colon = field.firstIndex(of: ":"),
                  field[..<colon].trimmingCharacters(in: .whitespaces).lowercased() == name.lowercased() else { return nil }
            return field[field.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
    }
}
