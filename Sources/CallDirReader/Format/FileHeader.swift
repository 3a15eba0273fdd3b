/// The fixed 64-byte header at offset 0 (see FORMAT.md).
package struct FileHeader: Equatable {
    package var major = IndexFormat.majorVersion
    package var minor = IndexFormat.minorVersion
    package var sectionCount: Int
    package var fileSize: Int
    package var sectionTableOffset: Int
    package var sectionTableCRC: UInt32

    package init(major: UInt16 = IndexFormat.majorVersion, minor: UInt16 = IndexFormat.minorVersion, sectionCount: Int,
                 fileSize: Int, sectionTableOffset: Int, sectionTableCRC: UInt32) {
        self.major = major
        self.minor = minor
        self.sectionCount = sectionCount
        self.fileSize = fileSize
        self.sectionTableOffset = sectionTableOffset
        self.sectionTableCRC = sectionTableCRC
    }

    package func encoded() -> [UInt8] {
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
    package static func decode(_ bytes: UnsafeRawBufferPointer, path: String) throws -> FileHeader {
        func damage(_ message: String, _ offset: Int = 0) -> CallDirError {
            CallDirError(.corruptIndex, message, path: path, offset: offset)
        }
        guard bytes.count >= IndexFormat.headerSize,
              bytes.prefix(8).elementsEqual(IndexFormat.magic) else {
            throw CallDirError(.corruptIndex, "not a calldir index (bad magic or too short)", path: path)
        }
        let major = bytes.readLE(UInt16.self, at: 8)!
        guard major != 1 else {
            throw CallDirError(.unsupportedVersion, "index in format 1.0, written by calldir 0.1: recompile the list with "
                               + "this calldir (it reads format \(IndexFormat.majorVersion).0, whose labels are stored compressed)",
                               path: path)
        }
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
package struct SectionEntry: Equatable {
    package var kind: SectionKind
    package var offset: Int
    package var length: Int
    package var crc: UInt32

    package init(kind: SectionKind, offset: Int, length: Int, crc: UInt32) {
        self.kind = kind
        self.offset = offset
        self.length = length
        self.crc = crc
    }

    package func encode(into out: inout [UInt8]) {
        out.appendLE(kind.rawValue)
        out.appendLE(UInt32(0))
        out.appendLE(UInt64(offset))
        out.appendLE(UInt64(length))
        out.appendLE(crc)
        out.appendLE(UInt32(0))
    }
}
