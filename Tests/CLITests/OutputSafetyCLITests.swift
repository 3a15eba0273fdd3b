import Foundation
import Testing
import TestSupport

/// Issue 45, "Files": an output that is one of the command's inputs, and an output through a
/// symbolic link another user planted in a sticky world-writable folder (/tmp's mode).
@Suite("Outputs that would replace an input or a planted link's target")
struct OutputSafetyCLITests {
    @Test("an output naming one of the command's inputs is refused with exit 64, the input untouched")
    func outputIsInput() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let list = folder.write("b.txt", "14085550000\n14085550007\n")
        let old = folder.file("old.calldir"), new = folder.file("new.calldir")
        #expect(try CLI.run(["compile", "--block", list, "-o", old, "-q"]).status == 0)
        #expect(try CLI.run(["compile", "--block", list, folder.write("c.txt", "14085550014\n"), "-o", new, "-q"]).status == 0)
        let delta = folder.file("d.delta")
        #expect(try CLI.run(["diff", old, new, "-o", delta, "-q"]).status == 0)
        // Another name of the same file: a hard link (same device and inode).
        let alias = folder.file("alias.calldir")
        #expect(link(old, alias) == 0)
        let cases: [(arguments: [String], input: String)] = [
            (["export", "--index", old, "--format", "text", "-o", old], old),
            (["export", "--index", old, "--format", "text", "-o", alias], old),
            (["diff", old, new, "-o", old], old),
            (["diff", old, new, "-o", new], new),
            (["patch", old, delta, "-o", delta], delta),
            (["compile", "--block", list, "-o", list, "-q"], list),
            (["compile", "--block", list, "-o", folder.file("x.calldir"), "--rejects", list, "-q"], list),
            (["compile", "--block", list, "-o", folder.file("y.calldir"), "--error-format", "json", "--error-file", list, "-q"], list),
        ]
        for (arguments, input) in cases {
            let before = fileBytes(input)
            let result = try CLI.run(arguments)
            let command = "calldir " + arguments.joined(separator: " ")
            #expect(result.status == 64, "\(command): exit \(result.status), \(result.stderr)")
            #expect(result.stderr.contains("is the input"), "\(command): \(result.stderr)")
            #expect(fileBytes(input) == before, "\(command) replaced its input")
        }
    }

    @Test("as root, -o through a link another user planted in a sticky world-writable folder is refused, the target untouched")
    func plantedLink() throws {
        guard getuid() == 0 else { return }  // lchown to another user needs root (CI runs the tests as root)
        let folder = TempFolder()
        defer { folder.remove() }
        let sticky = folder.file("tmp")
        #expect(mkdir(sticky, 0o777) == 0 && chmod(sticky, 0o1777) == 0)
        let victim = folder.write("victim.txt", "precious\n")
        let list = folder.write("b.txt", "14085550000\n")
        let index = folder.file("i.calldir")
        #expect(try CLI.run(["compile", "--block", list, "-o", index, "-q"]).status == 0)
        let other = folder.file("other.calldir"), delta = folder.file("d.delta")
        #expect(try CLI.run(["compile", "--block", folder.write("c.txt", "14085550007\n"), "-o", other, "-q"]).status == 0)
        #expect(try CLI.run(["diff", index, other, "-o", delta, "-q"]).status == 0)
        let planted = sticky + "/spam.calldir"
        #expect(symlink(victim, planted) == 0 && lchown(planted, 65534, 65534) == 0)
        let outputs: [[String]] = [
            ["compile", "--block", list, "-o", planted, "-q"],
            ["compile", "--block", list, "-o", folder.file("r1.calldir"), "--rejects", planted, "-q"],
            ["compile", "--block", list, "-o", folder.file("r2.calldir"), "--error-format", "json", "--error-file", planted, "-q"],
            ["export", "--index", index, "--format", "text", "-o", planted],
            ["diff", index, other, "-o", planted, "-q"],
            ["patch", index, delta, "-o", planted, "-q"],
        ]
        for arguments in outputs {
            let result = try CLI.run(arguments)
            let command = "calldir " + arguments.joined(separator: " ")
            #expect(result.status != 0, "\(command): exit 0")
            #expect(result.stderr.contains("fs.protected_symlinks"), "\(command): \(result.stderr)")
            #expect(fileBytes(victim) == Array("precious\n".utf8), "\(command) replaced the link's target")
            #expect(isLink(planted), "\(command) replaced the link")
        }
        // A link the caller owns in the same folder is followed, as the kernel would.
        let own = sticky + "/own.calldir"
        let target = folder.file("target.calldir")
        #expect(symlink(target, own) == 0)
        _ = folder.write("target.calldir", "old\n")
        #expect(try CLI.run(["compile", "--block", list, "-o", own, "-q"]).status == 0)
        #expect(fileBytes(target) == fileBytes(index), "the caller's own link was not followed")
    }

    private func isLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }
}
