/// The program a command runs, read from its argv as far as it can be judged without running a shell: for a
/// `sh -c LINE` command, the first word of LINE once leading `VAR=value` assignments are skipped; otherwise argv[0].
///
/// Only plain words are judged. A first word that is a shell builtin or keyword (`exec`, `cd`, `if`, `{`, `(`,
/// `test`, `[` …), or that holds quoting, expansions, globs or redirections, gives nil: what runs then depends on
/// the shell, and a check that guessed would refuse commands that work. A command that cannot run is then told by
/// its run's failure (exit 127 and the shell's message, kept in the run's output).
public enum ShellCommandLine {
  /// The program `argv` runs, or nil when it cannot be judged (see the type's description).
  public static func program(of argv: [String]) -> String? {
    guard let first = argv.first, !first.isEmpty else { return nil }
    let base = first.split(separator: "/").last.map(String.init) ?? first
    if shells.contains(base), argv.count >= 3, argv[1] == "-c" { return program(ofLine: argv[2]) }
    return first
  }

  /// The program a shell command line runs, or nil when it cannot be judged.
  public static func program(ofLine line: String) -> String? {
    for word in line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }) {
      // Anything a shell would expand, quote, group or redirect: not judged.
      if word.contains(where: { special.contains($0) }) { return nil }
      if isAssignment(word) { continue }
      return keywordsAndBuiltins.contains(String(word)) ? nil : String(word)
    }
    return nil
  }

  /// `NAME=value` with a shell variable name (its value already known to hold nothing special).
  private static func isAssignment(_ word: Substring) -> Bool {
    guard let eq = word.firstIndex(of: "="), eq != word.startIndex else { return false }
    let name = word[..<eq]
    return !name.first!.isNumber && name.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
  }

  /// The shells whose `-c LINE` is read here.
  private static let shells: Set<String> = ["sh", "bash", "dash"]

  /// Characters that make a word the shell's to interpret.
  private static let special: Set<Character> = [
    "'", "\"", "\\", "$", "`", "*", "?", "[", "]", "{", "}", "(", ")", "<", ">", "|", ";", "&", "~", "#", "!",
  ]

  /// Keywords and builtins of POSIX sh (and dash and bash): not programs on the PATH.
  private static let keywordsAndBuiltins: Set<String> = [
    "if", "then", "else", "elif", "fi", "while", "until", "for", "do", "done", "case", "esac", "in", "function",
    "exec", "cd", "test", "[", "[[", ".", ":", "source", "eval", "command", "builtin", "true", "false", "set",
    "export", "unset", "trap", "exit", "return", "shift", "wait", "echo", "printf", "read", "kill", "ulimit", "umask",
    "alias", "unalias", "type", "times", "break", "continue", "local", "readonly", "getopts", "hash", "pwd", "jobs",
    "fg", "bg", "time",
  ]
}
