import Foundation
import Testing
@testable import CallDirReader
import CallDirSimulator
import TestSupport

/// The daemon's private copy of an index (`MappedFile(copying:)`): read whole, not mapped, so
/// it must behave as the file does, and never give its pages back to the kernel (the device
/// feed releases the pages it has read: on anonymous memory MADV_DONTNEED zeroes them).
@Suite("An index read into private memory")
struct MappedCopyTests {
    @Test("a copy answers as the file does, after a whole device feed over more than 4,096 blocks")
    func copyAfterFeed() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        // 1,100,000 numbers: 4,297 blocks, so the feed releases the first 4,096 blocks' pages.
        let path = folder.file("big.calldir")
        try buildIndex(block: (0..<1_100_000).map { String(33_100_000_000 + Int64($0) * 3) }, output: path)
        let copy = try CallDirIndex(file: MappedFile(copying: path), verify: true)
        let simulator = CallKitSimulator()
        var committed: LoadCheckpoint?
        repeat {
            simulator.beginRequest(systemSaysIncremental: committed != nil)
            committed = try DeviceLoader(index: copy, requestSize: 1_999_999).loadRequest(into: simulator, resumingFrom: committed).checkpoint
            #expect(simulator.endRequest().succeeded)
        } while !committed!.isFinished
        #expect(simulator.entryCount == 1_100_000)
        for n: Int64 in [33_100_000_000, 33_100_000_003, 33_100_300_000, 33_103_299_997] {
            #expect(try copy.lookup(n).blocked != nil, "\(n) is no longer found in the copy after the feed")
        }
        #expect(try copy.lookup(33_100_000_001).blocked == nil)
        try CallDirIndex(file: copy.file, verify: true).forEachBlockedNumber { _ in }
    }

    @Test("a FIFO, a folder or a file that is not there: refused with a message naming what it is")
    func notRegular() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let fifo = folder.file("fifo")
        #expect(mkfifo(fifo, 0o644) == 0)
        for (path, what) in [(fifo, "a FIFO, not a regular file"), (folder.path, "a directory, not a regular file"),
                             (folder.file("none"), "no index file here")] {
            for open in [{ try MappedFile(path: path) }, { try MappedFile(copying: path) }] {
                do {
                    _ = try open()
                    Issue.record("\(path) was opened")
                } catch let error as CallDirError {
                    #expect(error.code == .io && error.message.contains(what) && error.path == path, "\(error)")
                }
            }
        }
    }
}
