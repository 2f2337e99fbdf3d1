import JetsamCore

/// The commands that speak for a program that does not speak the protocol, as `jetsamctl launch` and
/// `jetsam-lab check` take them: `--ready CMD`, `--digest CMD`, `--digest-valid-for S` and `--on EVENT=CMD`
/// (PROTOCOL.md, *Commands that speak for the program*). Each CMD is one shell command line, run by `/bin/sh -c` as
/// the app's user, so that `--ready "redis-cli -p 6380 PING"` reads as it would be typed. One parser for both
/// programs, so that the same words mean the same launch request.
public struct ProgramCommands: Sendable, Equatable {
  /// A misused option, with what is wrong in words (the caller exits 64).
  public struct UsageError: Error, Sendable, Equatable {
    public var message: String
  }

  /// The options that take a value (`--on` may be given more than once).
  public static let options: Set<String> = ["--ready", "--digest", "--digest-valid-for", "--on"]

  /// The request's `ready`, `digest`, `digestValidFor` and `hooks` (argv each).
  public var ready: [String]?
  public var digest: [String]?
  public var digestValidFor: Double?
  /// By event name (an ``AppEventKind``'s).
  public var hooks: [String: [String]]?

  /// No command at all.
  public init() {}

  /// The commands given in `options` (each option's values in the order given; for all but `--on` the last
  /// counts). Options other than ``options`` are ignored.
  ///
  /// - Throws: ``UsageError`` for an empty command, `--digest-valid-for` without `--digest` or not a positive
  ///   number of seconds, or an `--on` value that is not `EVENT=CMD` for a lifecycle event.
  public init(options: [String: [String]]) throws(UsageError) {
    if let ready = options["--ready"]?.last { self.ready = try Self.shell(ready, "--ready") }
    if let digest = options["--digest"]?.last {
      // The restored digest is taken once --ready says the relaunched program is up: without it there is none, and
      // every relaunch would be judged `lost`.
      guard ready != nil else {
        throw UsageError(message: "--digest: needs --ready (the restored digest waits for it)")
      }
      self.digest = try Self.shell(digest, "--digest")
    }
    if let text = options["--digest-valid-for"]?.last {
      guard digest != nil else { throw UsageError(message: "--digest-valid-for: needs --digest") }
      guard let seconds = Double(text.hasSuffix("s") ? String(text.dropLast()) : text), seconds.isFinite, seconds > 0
      else { throw UsageError(message: "--digest-valid-for: \"\(text)\" is not a number of seconds above 0") }
      digestValidFor = seconds
    }
    for pair in options["--on"] ?? [] {
      guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else {
        throw UsageError(
          message: "--on: \"\(pair)\" is not EVENT=CMD (e.g. didEnterBackground=\"redis-cli SAVE\")")
      }
      let event = String(pair[..<eq])
      // Refused here as misuse, before anything is launched (jetsamd refuses it too, as a bad request).
      guard AppEventKind(rawValue: event) != nil else {
        let known = AppEventKind.allCases.map(\.rawValue).joined(separator: ", ")
        throw UsageError(message: "--on \(event): unknown lifecycle event (known: \(known))")
      }
      hooks = hooks ?? [:]
      hooks?[event] = try Self.shell(String(pair[pair.index(after: eq)...]), "--on \(event)")
    }
  }

  /// Whether no command is given.
  public var isEmpty: Bool { ready == nil && digest == nil && hooks == nil }

  /// Puts the commands into a launch request.
  public func apply(to request: inout ControlRequest) {
    request.ready = ready
    request.digest = digest
    request.digestValidFor = digestValidFor
    request.hooks = hooks
  }

  /// `/bin/sh -c LINE`, for a non-empty line.
  private static func shell(_ line: String, _ option: String) throws(UsageError) -> [String] {
    guard !line.allSatisfy({ $0 == " " || $0 == "\t" }) else {
      throw UsageError(message: "\(option): the command is empty")
    }
    return ["/bin/sh", "-c", line]
  }
}
