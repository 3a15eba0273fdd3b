import ArgumentParser
import CallDir
import CallDirLookup
import CallDirReader
import CallDirWriter

/// `compile --error-format` and `--error-file`: where each problem found in a list goes, in
/// which format (`DiagnosticFormatter`). `report` is the one hook the compile calls per
/// diagnostic; `finish` closes the run (GitHub's summary annotation, the GitLab report or the
/// JSON lines file, published atomically whatever the outcome, so CI always finds it).
struct ErrorOutputOptions: ParsableArguments {
    @Option(name: .customLong("error-format"),
            help: ArgumentHelp("How problems are printed on stderr: text (FILE:LINE: reason), github (workflow commands that annotate the pull request; 9 problems and a summary, GitHub's cap of 10 per step), gitlab (text on stderr and a code quality report in --error-file) or json (one object per line).",
                               valueName: "format"))
    var errorFormat: ErrorFormat = .text

    @Option(name: .customLong("error-file"),
            help: ArgumentHelp("With gitlab (required) or json: write the report to this file instead, published atomically even when the compile fails.",
                               valueName: "file"), completion: .file())
    var errorFile: String?

    func validate() throws {
        if errorFormat == .gitlab, errorFile == nil {
            throw ValidationError("--error-format gitlab writes a code quality report: give --error-file PATH (e.g. gl-code-quality-report.json).")
        }
        if errorFile != nil, errorFormat == .text || errorFormat == .github {
            throw ValidationError("--error-file takes the report of --error-format gitlab or json.")
        }
    }
}

extension ErrorFormat: ExpressibleByArgument {}

final class DiagnosticOutput {
    private var formatter: DiagnosticFormatter
    private let file: String?
    private var fileLines: [String] = []

    init(_ options: ErrorOutputOptions) {
        formatter = DiagnosticFormatter(format: options.errorFormat)
        file = options.errorFile
    }

    var count: Int { formatter.count }

    /// Whether stderr carries JSON lines only (`--error-format json` without `--error-file`): then
    /// the compile's failure is one more JSON line, never a plain `calldir: error:` line.
    var stderrIsJSON: Bool { formatter.format == .json && file == nil }

    /// The compile's failure as `Terminal.fail` gives it, printed as this output's format asks.
    func fail(_ error: Error, negative: Set<CallDirError.Code> = []) -> ExitCode {
        stderrIsJSON ? Terminal.failQuietly(error, negative: negative) : Terminal.fail(error, negative: negative)
    }

    /// The hook: prints (or keeps, for --error-file) one diagnostic.
    func report(_ diagnostic: Diagnostic) {
        let line = formatter.line(for: diagnostic)
        Terminal.clearProgress()
        if formatter.format == .json, file != nil { fileLines.append(line) } else { Terminal.printError(line) }
    }

    /// Closes the run; `error` is the compile's failure, if any. A problem writing the report
    /// file is printed and returned as exit status 2.
    func finish(error: Error?) -> Int32? {
        var fatal: String?
        if let error {
            // In a file, the problems say enough; on stderr the summary is a JSON line too.
            let rows = (error as? CallDirError).map { $0.code == .invalidList && count > 0 } ?? false
            if !rows || stderrIsJSON { fatal = (error as? CallDirError)?.description ?? "\(error)" }
        }
        for line in formatter.closingLines(fatal: fatal) {
            if formatter.format == .json, file != nil { fileLines.append(line) } else { Terminal.printError(line) }
        }
        guard let file else { return nil }
        let text = formatter.format == .gitlab ? formatter.codeQualityReport
                                               : fileLines.map { $0 + "\n" }.joined()
        do {
            try AtomicText.publish(text, to: file, role: "the error report")
            return nil
        } catch {
            return Terminal.failStatus(error)
        }
    }
}
