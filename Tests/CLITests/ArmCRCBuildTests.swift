import Foundation
import Testing

/// The arm64 CRC path cannot run here (x86-64), so it is compiled here: CKernels' CRC32Table.c
/// cross-compiled for arm64 Linux and iOS must contain the CRC32X instruction behind a run-time
/// check (getauxval on Linux, sysctlbyname on Darwin), not only when the build's baseline has
/// `__ARM_FEATURE_CRC32` (Xcode's default iPhone target does not). System headers are stubbed:
/// the C library of those targets is not installed here.
@Suite("arm64 CRC path (cross-compiled)")
struct ArmCRCBuildTests {
    static func tool(_ name: String) -> String? {
        ["/opt/swift/usr/bin/\(name)", "/usr/bin/\(name)"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    @Test("CRC32Table.c for arm64 Linux and iOS: CRC32X instructions, detected at run time",
          .enabled(if: tool("clang") != nil && tool("llvm-objdump") != nil, "clang or llvm-objdump absent: skipped"))
    func crossCompiled() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        try FileManager.default.createDirectory(atPath: scratch.file("stubs/sys"), withIntermediateDirectories: true)
        _ = scratch.write("stubs/sys/sysctl.h", "#include <stddef.h>\nint sysctlbyname(const char *, void *, size_t *, void *, size_t);\n")
        _ = scratch.write("stubs/sys/auxv.h", "unsigned long getauxval(unsigned long);\n#define AT_HWCAP 16\n")
        let source = CLI.packageRoot.appendingPathComponent("Sources/CKernels")
        for (target, detector) in [("aarch64-linux-gnu", "getauxval"), ("arm64-apple-ios15.0", "sysctlbyname")] {
            let object = scratch.file("\(target).o")
            let (status, message) = try runShell("'\(Self.tool("clang")!)' --target=\(target) -ffreestanding -O2 -Wall -Werror "
                + "-I '\(source.path)/include' -I '\(scratch.file("stubs"))' -c '\(source.path)/CRC32Table.c' -o '\(object)'")
            #expect(status == 0, "\(target): \(message)")
            let disassembly = try shellOutput("'\(Self.tool("llvm-objdump")!)' -d -r --mattr=+crc '\(object)'")
            #expect(disassembly.contains("crc32x"), "\(target): no CRC32X instruction")
            #expect(disassembly.contains(detector), "\(target): no run-time check (\(detector))")
        }
    }

    func shellOutput(_ command: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", command]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
