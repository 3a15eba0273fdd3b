/// The fixed 64-byte header at offset 0 (see FORMAT.md), shared by index and delta files,
/// which differ in magic, version and the 24 bytes at 36 (zero in an index).
package struct FileHeader: Equatable {
    package var magic = IndexFormat.magic
    package var major = IndexFormat.majorVersion
    package var minor = IndexFormat.minorVersion
    package var sectionCount: Int
    package var fileSize: Int
    package var sectionTableOffset: Int
    package var sectionTableCRC: UInt32
    /// Bytes 36..<60: zero in an index; a delta names the files it connects there.
    package var extra = [UInt8](repeating: 0, count: 24)

    package init(magic: [UInt8] = IndexFormat.magic, major: UInt16 = IndexFormat.majorVersion,
                 minor: UInt16 = IndexFormat.minorVersion, sectionCount: Int,
                 fileSize: Int, sectionTableOffset: Int, sectionTableCRC: UInt32, extra: [UInt8] = []) {
        self.magic = magic
        self.major = major
        self.minor = minor
        self.sectionCount = sectionCount
        self.fileSize = fileSize
        self.sectionTableOffset = sectionTableOffset
        self.sectionTableCRC = sectionTableCRC
        self.extra = extra + [UInt8](repeating: 0, count: max(0, 24 - extra.count))
    }

    package func encoded() -> [UInt8] {
        var out = magic
        out.appendLE(major)
        out.appendLE(minor)
        out.appendLE(UInt32(sectionCount))
        out.appendLE(UInt64(fileSize))
        out.appendLE(UInt64(sectionTableOffset))
        out.appendLE(sectionTableCRC)
        out.append(contentsOf: extra.prefix(24))
        out.appendLE(Checksum.crc32(out))
        return out
    }

    /// Parses and checks the header of `bytes` (a whole index file, or only its first bytes
    /// when `fileSize` gives the file's size: checked before any content is read).
    package static func decode(_ bytes: UnsafeRawBufferPointer, fileSize: Int? = nil, path: String) throws -> FileHeader {
        try decode(bytes, fileSize: fileSize, magic: IndexFormat.magic, what: "calldir index", path: path) { major in
            guard major != 1 else {
            throw CallDirError(.unsupportedVersion, "index in format 1.0, written by calldir 0.1: recompile the list with "
                               + "this calldir (it reads format \(IndexFormat.majorVersion).0, whose labels are stored compressed)",
                               path: path)
        }
            guard IndexFormat.readableMajorVersions.contains(major) else {
                throw CallDirError(.unsupportedVersion,
                                   "index format version \(major) is not supported (this calldir reads versions 2 and \(IndexFormat.majorVersion)); "
                                   + "recompile the list", path: path)
            }
        }
    }

    /// Parses a header with `magic`; `checkVersion` throws for a major version it cannot read.
    package static func decode(_ bytes: UnsafeRawBufferPointer, fileSize: Int? = nil, magic: [UInt8], what: String, path: String,
                               checkVersion: (UInt16) throws -> Void) throws -> FileHeader {
        let size = fileSize ?? bytes.count
        func damage(_ message: String, _ offset: Int = 0) -> CallDirError {
            CallDirError(.corruptIndex, message, path: path, offset: offset)
        }
        guard bytes.count >= IndexFormat.headerSize, bytes.prefix(8).elementsEqual(magic) else {
            throw CallDirError(.corruptIndex, "not a \(what) (bad magic or too short)", path: path)
        }
        let major = bytes.readLE(UInt16.self, at: 8)!
        try checkVersion(major)
        let stored = bytes.readLE(UInt32.self, at: 60)!
        guard Checksum.crc32(UnsafeRawBufferPointer(rebasing: bytes[0..<60])) == stored else {
            throw damage("header checksum mismatch")
        }
        let header = FileHeader(magic: magic, major: major, minor: bytes.readLE(UInt16.self, at: 10)!,
                                sectionCount: Int(bytes.readLE(UInt32.self, at: 12)!),
                                fileSize: Int(clamping: bytes.readLE(UInt64.self, at: 16)!),
                                sectionTableOffset: Int(clamping: bytes.readLE(UInt64.self, at: 24)!),
                                sectionTableCRC: bytes.readLE(UInt32.self, at: 32)!, extra: Array(bytes[36..<60]))
        guard header.fileSize == size else {
            throw damage("file is \(size) bytes but its header says \(header.fileSize): truncated or extended", size)
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
