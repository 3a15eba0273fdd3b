import CallDirReader

/// Names of the temporaries a compile creates, carrying the owner's PID, so that a later run
/// can recognise the ones left by a process that died without cleaning up (kill -9, power
/// loss, OOM killer) and remove them:
///
/// - an output file in progress (index, rejects list): `.NAME.calldir.tmp.PID.XXXXXX` beside
///   its destination NAME;
/// - a sort's spill folder: `calldir-sort-PID-XXXXXX` under --tmpdir, holding only
///   `run-N.bin` files.
///
/// `XXXXXX` is mkstemp/mkdtemp's six random characters. A temporary is stale only when its
/// owner is gone (`kill(PID, 0)` fails with ESRCH): a live process's temporaries are never
/// touched (nor those of a PID that was reused since: they stay until that process ends), and
/// names that do not match exactly are never touched at all. PIDs are per PID namespace: do
/// not share an output folder or --tmpdir between containers that compile at the same time.
package enum StaleTemporaries {
    package static let fileMarker = ".calldir.tmp."
    package static let folderPrefix = "calldir-sort-"

    /// The mkstemp template for an output file beside `destinationName` in `folder`.
    package static func fileTemplate(folder: String, destinationName: String) -> String {
        "\(folder)/.\(destinationName)\(fileMarker)\(Syscalls.processID).XXXXXX"
    }

    /// The mkdtemp template for a spill folder inside `parent`.
    package static func folderTemplate(parent: String) -> String {
        "\(parent)/\(folderPrefix)\(Syscalls.processID)-XXXXXX"
    }

    package enum Kind: Equatable { case file, spillFolder }

    /// The owner PID and kind if `name` (a bare file name) is one of our temporaries.
    package static func recognise(_ name: String) -> (pid: Int32, kind: Kind)? {
        let bytes = Array(name.utf8)
        guard bytes.count > 7, bytes[(bytes.count - 6)...].allSatisfy(isTemplateCharacter) else { return nil }
        let head = bytes[..<(bytes.count - 7)]  // without the separator and the random part
        let separator = bytes[bytes.count - 7]
        guard let digitsStart = head.lastIndex(where: { !isDigit($0) }).map({ $0 + 1 }),
              digitsStart < head.endIndex, head.endIndex - digitsStart <= 9,
              let pid = Int32(String(decoding: head[digitsStart...], as: UTF8.self)), pid > 0 else { return nil }
        let prefix = String(decoding: head[..<digitsStart], as: UTF8.self)
        if separator == UInt8(ascii: "."), prefix.hasPrefix("."), prefix.hasSuffix(fileMarker),
           prefix.count > fileMarker.count + 1 {
            return (pid, .file)
        }
        if separator == UInt8(ascii: "-"), prefix == folderPrefix { return (pid, .spillFolder) }
        return nil
    }

    /// Whether no process with this PID exists (false when unsure, e.g. EPERM: it exists).
    package static func ownerIsDead(_ pid: Int32) -> Bool {
        Syscalls.processIsGone(pid)
    }

    /// Removes, in each folder, the temporaries whose owner is dead; returns how many were
    /// removed. Unreadable folders and entries that cannot be removed are skipped silently:
    /// this is housekeeping and must never fail a compile.
    @discardableResult
    package static func sweep(folders: [String]) -> Int {
        var removed = 0
        var seen: Set<String> = []
        for folder in folders where seen.insert(folder).inserted {
            for name in entries(of: folder) {
                guard let (pid, kind) = recognise(name), ownerIsDead(pid) else { continue }
                let path = "\(folder)/\(name)"
                switch kind {
                case .file: if case .success = Syscalls.unlink(path) { removed += 1 }
                case .spillFolder: if removeSpillFolder(path) { removed += 1 }
                }
            }
        }
        return removed
    }

    /// Removes a dead sort's `run-N.bin` files and then the folder, if nothing else is in it.
    private static func removeSpillFolder(_ path: String) -> Bool {
        for name in entries(of: path) where isRunFileName(name) { Syscalls.unlink("\(path)/\(name)") }
        if case .success = Syscalls.removeFolder(path) { return true }
        return false
    }

    package static func isRunFileName(_ name: String) -> Bool {
        guard name.hasPrefix("run-"), name.hasSuffix(".bin") else { return false }
        let digits = name.dropFirst(4).dropLast(4)
        return !digits.isEmpty && digits.utf8.allSatisfy(isDigit)
    }

    /// The names in a folder (without . and ..); empty when it cannot be read.
    private static func entries(of folder: String) -> [String] { Syscalls.folderEntries(folder) }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private static func isTemplateCharacter(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }
}
