/// Constants of the index file format. FORMAT.md at the repository root is the normative
/// description; a change here changes the spec, the version and the golden fixture together.
package enum IndexFormat {
    /// "CALLDIR" followed by 0x1A (stops `type`/`cat` on some systems, flags text-mode damage).
    package static let magic: [UInt8] = [0x43, 0x41, 0x4C, 0x4C, 0x44, 0x49, 0x52, 0x1A]
    /// "CDIRTAIL": last 8 bytes of every complete file.
    package static let trailerMagic: [UInt8] = [0x43, 0x44, 0x49, 0x52, 0x54, 0x41, 0x49, 0x4C]

    /// The version this calldir writes. Minor versions only add optional sections.
    package static let majorVersion: UInt16 = 3
    /// The minor version this calldir writes (readers ignore optional sections they do not know).
    package static let minorVersion: UInt16 = 0
    /// Major versions it reads: 2 differs from 3 only in label blocks without a step table.
    package static let readableMajorVersions: ClosedRange<UInt16> = 2...3

    package static let headerSize = 64
    package static let sectionEntrySize = 32
    package static let trailerSize = 16
    /// Sections start at multiples of this, so fixed-width arrays can be read in place.
    package static let sectionAlignment = 64

    /// Entries per Elias-Fano block: one block is what a lookup decodes and checksums.
    package static let blockSize = 256
    package static let directoryHeaderSize = 16
    package static let directoryEntrySize = 16
    /// Directory entries per page of a directory-pages section (format 2.1): one page's CRC is
    /// checked the first time a lookup needs it, so opening does not read the whole directory.
    package static let directoryPageEntries = 64
    package static let directoryPageHeaderSize = 16
    package static let directoryPageSize = 16
    package static let blockRangeSize = 16
    package static let identifyRangeSize = 24
    /// Bytes after the last block, so 8-byte loads inside any block stay inside the section.
    package static let blockDataPadding = 8

    /// Longest label, in UTF-8 bytes. CallKit documents no limit; a lock screen shows ~40.
    /// Spelled once, as `RejectReason.maxLabelBytes`: the refusal of a longer label names it,
    /// and the reasons sit beneath the format (CallDirNumbers).
    package static let maxLabelBytes = RejectReason.maxLabelBytes
}

/// Section kinds. The `indexKinds` appear exactly once in a version 2 file; the directory
/// pages (2.1) at most once, and a reader without them checks the whole directory at open.
/// Kind 6 (version 1's labels table) is retired.
package enum SectionKind: UInt32, CaseIterable, Sendable {
    case metadata = 1
    case blockedNumbers = 2
    case blockedDirectory = 3
    case identifiedNumbers = 4
    case identifiedDirectory = 5
    case blockedRanges = 7
    case identifiedRanges = 8
    case labelSymbols = 9
    case sharedLabels = 10
    case streamLabels = 11
    case blockedDirectoryPages = 12
    case identifiedDirectoryPages = 13
    // Delta files (FORMAT.md, "Delta file"); they also hold kinds 9-11 for their labels.
    case deltaMetadata = 33
    case removedBlockedNumbers = 34
    case removedBlockedDirectory = 35
    case addedBlockedNumbers = 36
    case addedBlockedDirectory = 37
    case removedIdentifiedNumbers = 38
    case removedIdentifiedDirectory = 39
    case addedIdentifiedNumbers = 40
    case addedIdentifiedDirectory = 41
    case removedBlockedRanges = 44
    case addedBlockedRanges = 45
    case removedIdentifiedRanges = 46
    case addedIdentifiedRanges = 47

    /// The kinds every index holds (each exactly once).
    package static let indexKinds: [SectionKind] = [.metadata, .blockedNumbers, .blockedDirectory, .identifiedNumbers,
                                                    .identifiedDirectory, .blockedRanges, .identifiedRanges, .labelSymbols,
                                                    .sharedLabels, .streamLabels]
    /// The kinds every delta holds.
    package static let deltaKinds: [SectionKind] = [.deltaMetadata, .removedBlockedNumbers, .removedBlockedDirectory,
                                                    .addedBlockedNumbers, .addedBlockedDirectory, .removedIdentifiedNumbers,
                                                    .removedIdentifiedDirectory, .addedIdentifiedNumbers,
                                                    .addedIdentifiedDirectory, .labelSymbols, .sharedLabels, .streamLabels,
                                                    .removedBlockedRanges, .addedBlockedRanges, .removedIdentifiedRanges,
                                                    .addedIdentifiedRanges]

    package var name: String {
        switch self {
        case .metadata: return "metadata"
        case .blockedNumbers: return "blocked-numbers"
        case .blockedDirectory: return "blocked-directory"
        case .identifiedNumbers: return "identified-numbers"
        case .identifiedDirectory: return "identified-directory"
        case .labelSymbols: return "label-symbols"
        case .sharedLabels: return "shared-labels"
        case .streamLabels: return "stream-labels"
        case .blockedDirectoryPages: return "blocked-directory-pages"
        case .identifiedDirectoryPages: return "identified-directory-pages"
        case .deltaMetadata: return "delta-metadata"
        case .removedBlockedNumbers: return "removed-blocked-numbers"
        case .removedBlockedDirectory: return "removed-blocked-directory"
        case .addedBlockedNumbers: return "added-blocked-numbers"
        case .addedBlockedDirectory: return "added-blocked-directory"
        case .removedIdentifiedNumbers: return "removed-identified-numbers"
        case .removedIdentifiedDirectory: return "removed-identified-directory"
        case .addedIdentifiedNumbers: return "added-identified-numbers"
        case .addedIdentifiedDirectory: return "added-identified-directory"
        case .removedBlockedRanges: return "removed-blocked-ranges"
        case .addedBlockedRanges: return "added-blocked-ranges"
        case .removedIdentifiedRanges: return "removed-identified-ranges"
        case .addedIdentifiedRanges: return "added-identified-ranges"
        case .blockedRanges: return "blocked-ranges"
        case .identifiedRanges: return "identified-ranges"
        }
    }
}
