import Foundation
import Testing
@testable import CallDir
@testable import CallDirReader
import CompileSupport
import TestSupport

/// A protobuf wire-format reader written for this test from the encoding spec
/// (https://protobuf.dev/programming-guides/encoding/), independent of `ProtobufWire`.
private struct WireReader {
    let bytes: [UInt8]
    var at = 0

    mutating func varint() throws -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard at < bytes.count, shift < 64 else { throw WireError.truncated }
            let byte = bytes[at]
            at += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }

    /// Every field of the message: (field number, varint value or bytes).
    mutating func fields() throws -> [(Int, UInt64?, [UInt8]?)] {
        var result: [(Int, UInt64?, [UInt8]?)] = []
        while at < bytes.count {
            let key = try varint()
            switch key & 7 {
            case 0: result.append((Int(key >> 3), try varint(), nil))
            case 2:
                let length = Int(try varint())
                guard at + length <= bytes.count else { throw WireError.truncated }
                result.append((Int(key >> 3), nil, Array(bytes[at..<(at + length)])))
                at += length
            default: throw WireError.unexpectedWireType
            }
        }
        return result
    }

    enum WireError: Error { case truncated, unexpectedWireType }
}

/// A decoded `KeywordDatabase`: keyword text -> value bytes, in file order.
private func keywordRows(_ path: String) throws -> [(String, [UInt8])] {
    var reader = WireReader(bytes: fileBytes(path))
    return try reader.fields().map { field, _, row in
        #expect(field == 1)
        var rowReader = WireReader(bytes: row ?? [])
        let rowFields = try rowReader.fields()
        #expect(rowFields.map(\.0) == [1, 2])
        return (String(decoding: rowFields[0].2!, as: UTF8.self), rowFields[1].2!)
    }
}

@Suite("Live Caller ID export")
struct ExportLiveCallerIDTests {
    /// Blocked: 18005555555 and the pattern 1900555000#; identified: 18005555555 Both,
    /// 18775555555 Tele, 4121560000-4121560004 Range with 4121560002 labelled Exact.
    static func index(in folder: TempFolder) throws -> String {
        let block = folder.write("b.txt", "18005555555\n1900555000#\n")
        let identify = folder.write("i.txt", "4121560000-4121560004\tRange\n4121560002\tExact \"wins\"\n18005555555\tBoth\n18775555555\tTele\n")
        // +41 2156000x has 8 national digits, one short of a Swiss number: --lenient.
        try compile(block: [block], identify: [identify], output: folder.file("i.calldir")) { $0.sort = true; $0.lenient = true }
        return folder.file("i.calldir")
    }

    func export(_ index: String, _ format: ExportFormat, to path: String, configure: (inout ExportOptions) -> Void = { _ in }) throws {
        var options = ExportOptions(format: format)
        configure(&options)
        _ = try Exporter(index: CallDirIndex(path: index), options: options).run(to: path)
    }

    @Test("the block KeywordDatabase has one row per number, value 1 when blocked, 0 when only identified")
    func blockDatabase() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        try export(try Self.index(in: folder), .liveCallerIDBlock, to: folder.file("block.pb"))
        let rows = try keywordRows(folder.file("block.pb"))
        var expected: [(String, [UInt8])] = [("+18005555555", [1])]
        expected += (0...9).map { ("+1900555000\($0)", [1]) }
        expected += [("+4121560000", [0]), ("+4121560001", [0]), ("+4121560002", [0]), ("+4121560003", [0]),
                     ("+4121560004", [0]), ("+18775555555", [0])]
        #expect(rows.map(\.0) == expected.map(\.0))
        #expect(rows.map(\.1) == expected.map(\.1))
    }

    @Test("the identity KeywordDatabase holds a serialized CallIdentity per number with an identity")
    func identityDatabase() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let index = try Self.index(in: folder)
        try export(index, .liveCallerIDIdentity, to: folder.file("identity.pb"))
        let rows = try keywordRows(folder.file("identity.pb"))
        func name(_ value: [UInt8]) throws -> String {
            var reader = WireReader(bytes: value)
            let fields = try reader.fields()
            #expect(fields.map(\.0) == [1])
            return String(decoding: fields[0].2!, as: UTF8.self)
        }
        let decoded = try rows.map { "\($0.0) \(try name($0.1))" }
        #expect(decoded == ["+18005555555 Both", "+4121560000 Range", "+4121560001 Range", "+4121560002 Exact \"wins\"",
                            "+4121560003 Range", "+4121560004 Range", "+18775555555 Tele"])
        // With a cache time and a category every number has an identity, blocked-only ones too.
        try export(index, .liveCallerIDIdentity, to: folder.file("all.pb")) {
            $0.cacheExpiryMinutes = 300
            $0.category = .business
        }
        let all = try keywordRows(folder.file("all.pb"))
        #expect(all.count == 17)
        var reader = WireReader(bytes: all.first { $0.0 == "+19005550007" }!.1)
        let fields = try reader.fields()
        #expect(fields.map(\.0) == [3, 4] && fields[0].1 == 300 && fields[1].1 == 2)
    }

    @Test("the InputIdentities text protobuf lists every number with name, block and category")
    func textProto() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        try export(try Self.index(in: folder), .liveCallerID, to: folder.file("input.txtpb")) { $0.category = .person }
        let text = try String(contentsOfFile: folder.file("input.txtpb"), encoding: .utf8)
        #expect(text.components(separatedBy: "identities {\n").count == 18)
        #expect(text.contains("""
            identities {
              key: "+18005555555"
              value {
                name: "Both"
                block: true
                category: IDENTITY_CATEGORY_PERSON
              }
            }
            identities {
              key: "+19005550000"
              value {
                block: true
                category: IDENTITY_CATEGORY_PERSON
              }
            }
            """))
        #expect(text.contains("  key: \"+4121560002\"\n  value {\n    name: \"Exact \\\"wins\\\"\"\n    category: IDENTITY_CATEGORY_PERSON\n"))
    }
}
