/// The fixed 64-byte header at offset 0 (see FORMAT.md).
struct FileHeader: Equatable {
    var major = IndexFormat.majorVersion
    var minor = IndexFormat.minorVersion
    var sectionCount: Int
    var fileSize: Int
    var sectionTableOffset: Int
    var sectionTableCRC: UInt32

    func encoded() -> [UInt8] {
        var out = IndexFormat.magic
        out.appendLE(major)
        out.appendLE(minor)
        out.appendLE(UInt32(sectionCount))
        out.appendLE(UInt64(fileSize))
        out.appendLE(UInt64(sectionTableOffset))
        out.appendLE(sectionTableCRC)
        out.append(contentsOf: repeatElement(0, count: 60 - out.count))
        out.appendLE(Checksum.crc32(out))
        return out
    }

    /// Parses and checks the header of `bytes` (a whole file).
    static func decode(_ bytes: UnsafeRawBufferPointer, path: String) throws -> FileHeader {
        func damage(_ message: String, _ offset: Int = 0) -> CallDirError {
            CallDirError(.corruptIndex, message, path: path, offset: offset)
        }
        guard bytes.count >= IndexFormat.headerSize,
              bytes.prefix(8).elementsEqual(IndexFormat.magic) else {
            throw CallDirError(.corruptIndex, "not a calldir index (bad magic or too short)", path: path)
        }
        let major = bytes.readLE(UInt16.self, at: 8)!
        guard major == IndexFormat.majorVersion else {
            throw CallDirError(.unsupportedVersion,
                               "index format version \(major) is not supported (this calldir reads version \(IndexFormat.majorVersion)); recompile the list",
                               path: path)
        }
        let stored = bytes.readLE(UInt32.self, at: 60)!
        guard Checksum.crc32(UnsafeRawBufferPointer(rebasing: bytes[0..<60])) == stored else {
            throw damage("header checksum mismatch")
        }
        let header = FileHeader(major: major, minor: bytes.readLE(UInt16.self, at: 10)!,
                                sectionCount: Int(bytes.readLE(UInt32.self, at: 12)!),
                                fileSize: Int(clamping: bytes.readLE(UInt64.self, at: 16)!),
                                sectionTableOffset: Int(clamping: bytes.readLE(UInt64.self, at: 24)!),
                                sectionTableCRC: bytes.readLE(UInt32.self, at: 32)!)
        guard header.fileSize == bytes.count else {
            throw damage("file is \(bytes.count) bytes but its header says \(header.fileSize): truncated or extended", bytes.count)
        }
        return header
    }
}

/// One row of the section table: 32 bytes.
struct SectionEntry: Equatable {
    var kind: SectionKind
    var offset: Int
    var length: Int
    var crc: UInt32

    func encode(into out: inout [UInt8]) {
        out.appendLE(kind.rawValue)
        out.appendLE(UInt32(0))
        out.appendLE(UInt64(offset))
        out.appendLE(UInt64(length))
        out.appendLE(crc)
        out.appendLE(UInt32(0))
    }
}
