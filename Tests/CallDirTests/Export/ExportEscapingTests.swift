import Foundation
import Testing
@testable import CallDir
@testable import CallDirReader
import CompileSupport
import TestSupport

/// Labels whose `"`, `\`, `,`, `;`, `&` or `<` is followed by a combining mark, a zero-width
/// joiner or a variation selector: one `Character` that is not equal to the quote, so an
/// escape by Character let it through. Each export is read back by an independent parser
/// (python3's csv, plistlib and json modules; the text protobuf and vCard by a few lines of
/// python written from their specifications), not by calldir's own readers.
@Suite("Export escaping by bytes")
struct ExportEscapingTests {
    static let labels = [
        "A\"\u{301}B", "C\\\u{200D}D", "E\"\u{FE0F}", "F,\u{301}G", "H;\u{200D}I", "J&\u{301}<\u{301}K", "L\\\u{FE0F}M",
        "N\"\u{200D}\"O", "plain",
    ]

    static let reader = #"""
import csv, io, json, plistlib, re, sys
fmt, path = sys.argv[1], sys.argv[2]
data = open(path, 'rb').read()
out = {}
if fmt == 'csv':
    rows = list(csv.reader(io.StringIO(data.decode('utf-8'), newline='')))
    assert rows[0] == ['number', 'label'], rows[0]
    for row in rows[1:]:
        assert len(row) == 2, row
        out[row[0]] = row[1]
elif fmt == 'begone':
    for entry in plistlib.loads(data):
        out[entry['number'].lstrip('+')] = entry['title']
elif fmt == 'saracroche':
    for entry in json.loads(data)['patterns']:
        out[entry['pattern']] = entry['name']
elif fmt == 'live-caller-id':
    text = data.decode('utf-8')
    string = r'"((?:[^"\\\n]|\\.)*)"'
    for block in re.finditer(r'identities \{\s*key: ' + string + r'\s*value \{\s*name: ' + string + r'\s*\}\s*\}', text):
        unescape = lambda s: re.sub(r'\\(["\\])', r'\1', s)
        out[block.group(1).lstrip('+')] = unescape(block.group(2))
    assert text.count('identities {') == len(out), 'unparsed identities'
elif fmt == 'vcard':
    text = data.decode('utf-8').replace('\r\n ', '')
    name = None
    for line in text.split('\r\n'):
        if line.startswith('FN:'):
            value, components, i, current = line[3:], [], 0, ''
            while i < len(value):
                c = value[i]
                if c == '\\':
                    current += value[i + 1]; i += 2; continue
                if c in ',;':
                    components.append(current); current = ''
                else:
                    current += c
                i += 1
            components.append(current)
            assert len(components) == 1, components
            name = components[0]
        elif line.startswith('TEL;VALUE=uri:tel:+'):
            out[line[len('TEL;VALUE=uri:tel:+'):]] = name
print(json.dumps(out))
"""#

    @Test("every export format escapes a quote, backslash or separator followed by a combining mark, ZWJ or variation selector")
    func combiningMarksAfterEscapedBytes() throws {
        let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let python else {
            print("skipped: python3 is not installed, and the exports must be read back by an independent parser")
            return
        }
        let folder = TempFolder()
        defer { folder.remove() }
        var expected: [String: String] = [:]
        var rows: [String] = []
        for (i, label) in Self.labels.enumerated() {
            let number = String(18_005_550_100 + Int64(i))
            expected[number] = label
            rows.append("\(number)\t\(label)")
        }
        let index = folder.file("labels.calldir")
        try compile(identify: [folder.write("labels.txt", rows)], output: index)
        #expect(try Set(CallDirIndex(path: index).distinctLabels()) == Set(Self.labels), "the labels did not compile as written")
        let script = folder.write("read.py", Self.reader)
        for format in [ExportFormat.csv, .begone, .saracroche, .liveCallerID, .vcard] {
            let output = folder.file("export.\(format.rawValue)")
            _ = try Exporter(index: CallDirIndex(path: index), options: ExportOptions(format: format)).run(to: output)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = [script, format.rawValue, output]
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            let problem = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(format.rawValue): python could not read the export back: \(problem)")
            let parsed = (try? JSONSerialization.jsonObject(with: data)) as? [String: String] ?? [:]
            for (number, label) in expected {
                #expect(parsed[number] == label, "\(format.rawValue): \(number) read back as \(parsed[number].debugDescription), wrote \(label.debugDescription)")
            }
        }
    }

    @Test("the escaping helper works on bytes: a quote before a combining mark is escaped")
    func helperByBytes() {
        #expect(Escaping.csvField("A\"\u{301}B") == "\"A\"\"\u{301}B\"")
        #expect(Escaping.protobufTextQuoted("C\\\u{200D}D\"\u{FE0F}") == "\"C\\\\\u{200D}D\\\"\u{FE0F}\"")
        #expect(Escaping.vCardText("F,\u{301};\u{200D}") == "F\\,\u{301}\\;\u{200D}")
        #expect(Escaping.xmlText("J&\u{301}<\u{301}>") == "J&amp;\u{301}&lt;\u{301}&gt;")
        #expect(Escaping.csvField(" \u{301}x") == "\" \u{301}x\"")
    }
}

/// Exports never turn damage into data, nor trust unverified metadata for their budgets.
@Suite("Export of damaged and forged indexes")
struct ExportDamageTests {
    @Test("a damaged range label is an error naming the damage in every export, never an empty label")
    func damagedRangeLabel() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let path = folder.file("range.calldir")
        try compile(identify: [folder.write("r.csv", "3316200####,Range label\n")], output: path)
        var bytes = fileBytes(path)
        let block = try #require(Forger(bytes: bytes).labelBlocks(10).first)
        bytes[(block.start + block.end) / 2] ^= 0x5A  // the block's CRC no longer matches
        let damaged = folder.write("damaged.calldir", bytes)
        for format in ExportFormat.allCases {
            var options = ExportOptions(format: format)
            options.kind = format == .saracroche || format.isLiveCallerID ? nil : .identify
            do {
                _ = try Exporter(index: CallDirIndex(path: damaged), options: options).run(to: folder.file("out.\(format.rawValue)"))
                Issue.record("\(format.rawValue): a damaged label was exported")
            } catch let error as CallDirError {
                #expect(error.code == .corruptIndex && error.message.contains("shared-labels"), "\(format.rawValue): \(error)")
            }
            #expect(!FileManager.default.fileExists(atPath: folder.file("out.\(format.rawValue)")))
        }
    }

    @Test("one forged range record (metadata forged to agree) is refused by --max-numbers before anything is written")
    func forgedRangeRecord() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let path = folder.file("b.calldir")
        try compile(block: [folder.write("b.txt", "14085550000\n1900555####\n")], output: path)
        var forger = Forger(bytes: fileBytes(path))
        let ranges = try #require(forger.section(7))
        let first = try #require(forger.read(ranges.offset, 8))
        forger.write(ranges.offset + 8, 8, first + 1_999_999)  // 2,000,000 numbers
        // The metadata made to agree (range numbers, device entries): with it unchanged, the
        // file is refused at open (counts against the sections) before any export starts.
        let metadata = try #require(forger.section(1))
        forger.write(metadata.offset + 40, 8, 2_000_000)
        forger.write(metadata.offset + 64, 8, try #require(forger.read(metadata.offset + 64, 8)) + 1_990_000)
        forger.reseal()
        let forged = folder.write("forged.calldir", forger.bytes)
        for format in [ExportFormat.text, .vcard, .liveCallerID] {
            var options = ExportOptions(format: format)
            options.ranges = .expand
            options.maxNumbers = 1_000_000
            do {
                _ = try Exporter(index: CallDirIndex(path: forged), options: options).run(to: folder.file("out"))
                Issue.record("\(format.rawValue): the forged range was expanded past --max-numbers")
            } catch let error as CallDirError {
                #expect(error.code == .limitExceeded && error.message.contains("at least 2,000,000 numbers"), "\(error)")
            }
            #expect(!FileManager.default.fileExists(atPath: folder.file("out")))
        }
    }
}
