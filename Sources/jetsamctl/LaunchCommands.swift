import JetsamProtocol

/// `launch`'s commands for a program that does not speak the protocol: `--ready CMD`, `--digest CMD`,
/// `--digest-valid-for S` and `--on EVENT=CMD`. Each CMD is one shell command line, run by `/bin/sh -c` as the app's
/// user, so that `--ready "redis-cli -p 6380 PING"` reads as it would be typed.
enum LaunchCommands {
  /// The options that take a value.
  static let options: Set<String> = ["--ready", "--digest", "--digest-valid-for", "--on"]

  /// Puts the options given in `args` into `request`.
  static func apply(_ args: VerbArguments, to request: inout ControlRequest) throws {
    if let ready = args.one("--ready") { request.ready = try shell(ready, "--ready") }
    if let digest = args.one("--digest") { request.digest = try shell(digest, "--digest") }
    if let text = args.one("--digest-valid-for") {
      guard request.digest != nil else { throw CLIError.usage("--digest-valid-for: needs --digest") }
      guard let seconds = Double(text.hasSuffix("s") ? String(text.dropLast()) : text), seconds.isFinite, seconds > 0
      else { throw CLIError.usage("--digest-valid-for: \"\(text)\" is not a number of seconds above 0") }
      request.digestValidFor = seconds
    }
    for pair in args.options["--on"] ?? [] {
      guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else {
        throw CLIError.usage("--on: \"\(pair)\" is not EVENT=CMD (e.g. didEnterBackground=\"redis-cli SAVE\")")
      }
      let event = String(pair[..<eq])
      request.hooks = request.hooks ?? [:]
      request.hooks?[event] = try shell(String(pair[pair.index(after: eq)...]), "--on \(event)")
    }
  }

  /// `/bin/sh -c LINE`, for a non-empty line.
  private static func shell(_ line: String, _ option: String) throws -> [String] {
    guard !line.allSatisfy({ $0 == " " || $0 == "\t" }) else { throw CLIError.usage("\(option): the command is empty") }
    return ["/bin/sh", "-c", line]
  }
}
