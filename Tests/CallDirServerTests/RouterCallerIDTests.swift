import CallDirLookup
@testable import CallDirServer
import Foundation
import NIOHTTP1
import CallDirReader
import Testing
import TestSupport

/// The daemon decides what is a caller ID (issue 35). A single lookup answers digits with the
/// separators people write, a `+` and the withheld words, with `--invalid` deciding the ones
/// that are not possible numbers (`911`). A range or pattern (`14692576503..14692576503`,
/// `1..4692576503`), text without a digit (the dot segments `.` and `..`) or an empty path
/// segment is nothing a caller sent: 400 `not-a-caller-id`, never the `--invalid` verdict.
/// With the documented `--invalid allow`, each of them let a blocked caller ring.
@Suite("Router: what is a caller ID")
struct RouterCallerIDTests {
    let scratch = TempFolder()
    /// The daemon of docs/kamailio/calldir.cfg: --country 1 --anonymous block --invalid allow.
    let router: Router

    init() throws {
        let index = try scratch.compile("ranges.calldir", block: ["14692576503", "18005555555", "1900555####"],
                                        identify: ["18775555555,Telemarketer"])
        router = try countryOneRouter(index: index, policy: CallerIDPolicy(withheld: .block, invalid: .allow))
    }

    func answer(_ uri: String, headers: HTTPHeaders = HTTPHeaders()) -> (Int, String) {
        let response = router.respond(method: .GET, uri: uri, body: nil, headers: headers)
        return (Int(response.status.code), String(buffer: response.body))
    }

    /// The issue's forms (a blocked number written as a range; `..` and `.` as a raw client
    /// sends them), patterns, and paths with nothing to look up.
    static let notCallerIDs = [
        "14692576503..14692576503", "14692576503..", "1..4692576503", "14692576503-14692576503", "1469257650%23",
        "1900555%23%23%23%23", "12%2345", "..", ".", "...", "", "%20", "+", "()", "-",
    ]

    @Test("a range, a pattern, a dot segment or an empty segment: 400 not-a-caller-id in every shape")
    func refused() throws {
        let text = "error\tnot-a-caller-id: \(Router.notACallerID)\n"
        for number in Self.notCallerIDs {
            let uri = "/v1/lookup/" + number
            #expect(answer(uri + "?format=text") == (400, text), "\(uri)")
            #expect(answer(uri + "?format=status") == (400, text), "\(uri)")
            #expect(answer(uri, headers: ["Accept": "text/plain"]) == (400, text), "\(uri)")
            let (status, body) = answer(uri)
            #expect(status == 400, "\(uri)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: String], "\(uri)")
            #expect(json == ["error": "not-a-caller-id", "message": Router.notACallerID], "\(uri)")
        }
    }

    @Test("caller IDs keep their answers: separators, '+', national form, withheld words, --invalid for the rest")
    func answered() {
        for number in ["14692576503", "+1%20(469)%20257-6503", "1.469.257.6503", "469.257.6503", "(469)257-6503", "%2B14692576503"] {
            #expect(answer("/v1/lookup/\(number)?format=text") == (200, "block\n"), "\(number)")
        }
        #expect(answer("/v1/lookup/18775555555?format=text") == (200, "identify\tTelemarketer\n"))
        #expect(answer("/v1/lookup/12125550000?format=text") == (200, "allow\n"))
        for withheld in ["anonymous", "Anonymous", "PRIVATE", "restricted", "unavailable"] {
            #expect(answer("/v1/lookup/\(withheld)?format=text") == (200, "block\n"), "\(withheld)")  // --anonymous block
        }
        for invalid in ["911", "12010000000", "1469257650", "abc"] {
            #expect(answer("/v1/lookup/\(invalid)?format=text") == (200, "allow\n"), "\(invalid)")    // --invalid allow
        }
    }

    @Test("the policy still decides withheld and empty caller IDs that are not lookups (CLI and batch)")
    func policyUnchanged() {
        let policy = CallerIDPolicy(withheld: .block, invalid: .allow)
        #expect(policy.action(for: .empty) == .block)
        #expect(RejectReason.withheld.canBeCallerID && RejectReason.tooShort.canBeCallerID)
        #expect(!RejectReason.notASingleNumber.canBeCallerID && !RejectReason.invalidRange.canBeCallerID)
    }
}
