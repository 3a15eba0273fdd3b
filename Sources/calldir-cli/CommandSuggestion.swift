import ArgumentParser

/// A first word that names no command (`calldir compil --block x`): swift-argument-parser would
/// report the first option it cannot place ("Unknown option '--block'"), which points away from
/// the typo. This names the word and the nearest command instead.
enum CommandSuggestion {
    /// The message for `arguments`, or nil when the first word is an option or a command.
    static func message(for arguments: [String], commands: [String]) -> String? {
        guard let word = arguments.first, !word.hasPrefix("-"), !commands.contains(word) else { return nil }
        let nearest = commands.map { ($0, distance(word, $0)) }.min { $0.1 < $1.1 }
        let hint = nearest.flatMap { $0.1 <= max(2, word.count / 3) ? "did you mean '\($0.0)'? " : nil } ?? ""
        return "calldir: '\(word)' is not a command; \(hint)the commands are \(commands.joined(separator: ", ")) (calldir --help)"
    }

    /// Every subcommand's name and `help`.
    static var commandNames: [String] {
        CallDirCommand.configuration.subcommands.map { $0._commandName } + ["help"]
    }

    /// Levenshtein distance over characters.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in 1...max(b.count, 1) where !b.isEmpty {
                let next = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = row[j]
                row[j] = next
            }
        }
        return a.isEmpty ? b.count : row[b.count]
    }
}
