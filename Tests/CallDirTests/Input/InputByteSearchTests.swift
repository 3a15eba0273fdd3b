import Testing
@testable import CallDir

@Suite("Input: word-at-a-time byte search")
struct InputByteSearchTests {
    @Test func matchesMarksExactlyTheEqualBytes() {
        // Every position, with neighbours that trip the inexact "has zero byte" trick
        // (0x0B after 0x0A, 0x8A with the high bit set, 0x0A repeated).
        for position in 0..<8 {
            for neighbour: UInt8 in [0x00, 0x0B, 0x09, 0x8A, 0xFF, 0x0A] {
                var bytes = [UInt8](repeating: neighbour, count: 8)
                bytes[position] = 0x0A
                let word = bytes.withUnsafeBytes { ByteSearch.load($0.baseAddress!) }
                var expected: UInt64 = 0
                for (index, byte) in bytes.enumerated() where byte == 0x0A { expected |= 0x80 << UInt64(index * 8) }
                #expect(ByteSearch.matches(word, 0x0A) == expected, "position \(position), neighbour \(neighbour)")
                #expect(ByteSearch.firstOffset(ByteSearch.matches(word, 0x0A)) == bytes.firstIndex(of: 0x0A))
            }
        }
    }

    @Test func separatorsFindTheFirstTabOrCSVBytesAnywhere() {
        func scan(_ text: String) -> (Int?, Bool) {
            Array(text.utf8).withUnsafeBytes { let r = ByteSearch.separators(in: $0); return (r.tab, r.csv) }
        }
        for length in 0..<30 {
            let digits = String(repeating: "5", count: length)
            #expect(scan(digits) == (nil, false))
            #expect(scan(digits + "\tx,y\t") == (length, false), "tab at \(length)")
            #expect(scan(digits + ",x") == (nil, true), "comma at \(length)")
            #expect(scan(digits + "\"") == (nil, true), "quote at \(length)")
            #expect(scan("\"" + digits + "\t") == (length + 1, false))  // a TAB wins over CSV
        }
    }

    @Test func linesOfEveryLengthAroundWordBoundaries() throws {
        // Lengths 0...40 with LF and CRLF cover every newline position within a word.
        let lines = (0...40).map { String(repeating: "7", count: $0) }
        for ending in ["\n", "\r\n"] {
            try withTempDir { dir in
                let path = try dir.write("lines.txt", lines.map { $0 + ending }.joined())
                var seen: [(Int, Int)] = []
                let stream = ByteStream(file: try InputFile.open(path: path))
                try LineReader(stream: stream).forEachLine { line, number in seen.append((number, line.count)) }
                #expect(seen.map(\.0) == Array(1...41))
                #expect(seen.map(\.1) == Array(0...40))
            }
        }
    }
}
